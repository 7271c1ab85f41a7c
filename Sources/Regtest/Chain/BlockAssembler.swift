import Bitcoin

/// Builds the next block on the hub's tip as Core's miner does: a BIP34 coinbase paying
/// subsidy plus fees, mempool transactions chosen by ancestor-package fee rate (parents
/// always before children), the BIP141 witness commitment, the merkle root, a time above
/// the median of the last 11 blocks, and a nonce that meets regtest's target.
struct BlockAssembler {
    let previous: BlockHash
    let height: Int
    /// Median time past of the previous block; the new block's time must exceed it.
    let medianTimePast: Int64
    let now: Int64
    let payout: Script
    /// Core's `-blockmaxweight`: the block's weight limit, coinbase reserve included.
    var maxWeight = RegtestParameters.maxBlockWeight

    /// The block, given the mempool to fill it from. `forced` go first whatever their fee
    /// (`hub_mine_transaction`: parents before children, already checked for consensus);
    /// `held` and their descendants stay out (`hub_hold_transaction`). `avoiding` holds
    /// hashes the result must not have (blocks already known, e.g. an invalidated twin with
    /// the same contents).
    func assemble(from mempool: Mempool, forced: [MempoolEntry] = [], held: Set<TransactionID> = [],
                  avoiding known: (BlockHash) -> Bool) -> Block {
        let selected = forced + select(from: mempool, preselected: forced, held: held)
        let fees = selected.reduce(Int64(0)) { $0 + $1.fee }
        var transactions = [coinbase(fees: fees, commitment: nil)] + selected.map(\.transaction)
        if selected.contains(where: { $0.transaction.hasWitness }) {
            // The commitment covers the other transactions' wtxids (the coinbase's counts as
            // zero), so it can be computed before the coinbase is final.
            let commitment = WitnessCommitment.commitment(witnessRoot: WitnessCommitment.witnessRoot(of: transactions))
            transactions[0] = coinbase(fees: fees, commitment: commitment)
        }
        var time = UInt32(clamping: max(now, medianTimePast + 1))
        while true {
            var block = Block(header: BlockHeader(version: RegtestParameters.blockVersion, previousBlockHash: previous,
                                                  merkleRoot: [UInt8](repeating: 0, count: 32), time: time,
                                                  bits: RegtestParameters.bits, nonce: 0),
                              transactions: transactions)
            block.header.merkleRoot = block.computedMerkleRoot.root
            // About half of all hashes meet regtest's target: a couple of tries on average.
            while !block.header.hasValidProofOfWork(powLimit: .regtestPowLimit) { block.header.nonce &+= 1 }
            if !known(block.hash) { return block }
            time += 1
        }
    }

    /// Core v31's miner coinbase: version 2, `<height> OP_0` scriptSig (BIP34, and at least
    /// two bytes), nSequence 0xfffffffe with nLockTime height - 1, the witness reserved value
    /// when there is a commitment.
    private func coinbase(fees: Int64, commitment: [UInt8]?) -> Transaction {
        var input = TransactionInput(previousOutput: .null, scriptSig: Script([.pushNumber(Int64(height)), .zero]),
                                     sequence: TransactionInput.lockTimeEnabledSequence)
        var outputs = [TransactionOutput(value: RegtestParameters.subsidy(atHeight: height) + fees, scriptPubKey: payout)]
        if let commitment {
            input.witness = Witness([WitnessCommitment.defaultReservedValue])
            outputs.append(TransactionOutput(value: 0, scriptPubKey: WitnessCommitment.script(commitment: commitment)))
        }
        return Transaction(version: 2, inputs: [input], outputs: outputs, lockTime: UInt32(max(height - 1, 0)))
    }

    /// Ancestor-package selection: repeatedly take the not-yet-selected transaction whose
    /// package (itself and its unselected mempool ancestors) pays the highest fee rate, and
    /// add the package parents first, until the block's weight is used. A package that does
    /// not fit is skipped (it stays in the mempool) and smaller ones may still fill the
    /// room, as Core's miner does. `preselected` are already in the block; `held` and their
    /// descendants are never chosen.
    func select(from mempool: Mempool, preselected: [MempoolEntry] = [], held: Set<TransactionID> = []) -> [MempoolEntry] {
        let budget = min(maxWeight, RegtestParameters.maxBlockWeight) - RegtestParameters.coinbaseWeightReserve
        var chosen: [MempoolEntry] = []
        var chosenIDs = Set(preselected.map(\.txid))
        var skipped = Set<TransactionID>()
        for txid in held where mempool.entry(txid) != nil {
            skipped.insert(txid)
            skipped.formUnion(mempool.descendants(of: txid))
        }
        var weight = preselected.reduce(0) { $0 + $1.weight }
        let candidates = mempool.orderedEntries
        while true {
            var best: (package: [MempoolEntry], fee: Int64, vsize: Int)?
            for entry in candidates where !chosenIDs.contains(entry.txid) && !skipped.contains(entry.txid) {
                let package = ([entry.txid] + mempool.ancestors(of: entry.txid))
                    .filter { !chosenIDs.contains($0) }
                    .compactMap { mempool.entry($0) }
                let fee = package.reduce(Int64(0)) { $0 + $1.fee }
                let vsize = package.reduce(0) { $0 + $1.vsize }
                // Higher fee rate wins, compared by cross-multiplication; ties keep mempool order.
                if let current = best, fee * Int64(current.vsize) <= current.fee * Int64(vsize) { continue }
                best = (package, fee, vsize)
            }
            guard let best else { break }
            let packageWeight = best.package.reduce(0) { $0 + $1.weight }
            if weight + packageWeight > budget {
                // Only the candidate fails (Core's `failedTx`): its ancestors may still fit
                // in a smaller package of their own.
                skipped.insert(best.package[0].txid)
                continue
            }
            // Parents before children: a package member's in-package ancestors come first.
            let ordered = best.package.sorted { mempool.ancestors(of: $0.txid).count < mempool.ancestors(of: $1.txid).count }
            for entry in ordered {
                chosen.append(entry)
                chosenIDs.insert(entry.txid)
            }
            weight += packageWeight
        }
        return chosen
    }
}
