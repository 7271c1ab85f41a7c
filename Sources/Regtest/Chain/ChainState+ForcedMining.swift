import Bitcoin

extension ChainState {
    /// `hub_mine_transaction`: mines one block holding `transaction` whatever the mempool's
    /// policy says of it (non-standard scripts, any fee, a held parent), as a miner taking
    /// it out of band would. Only consensus decides: `ConsensusCheck` first, for a clear
    /// reason, then the kernel on the whole block. Mempool transactions spending the same
    /// outputs are evicted with their descendants, since the block confirms the other
    /// spend; its unconfirmed parents go in first; the rest of the block is filled from the
    /// mempool as usual. Nothing changes when it is refused.
    mutating func mineTransaction(_ transaction: Transaction, to payout: Script) throws -> BlockHash {
        let txid = transaction.txid
        var pool = mempool
        var returning: [Transaction] = []
        if let same = pool.entry(txid), same.wtxid != transaction.wtxid {
            // The same spend with another witness: this one is mined, and what spends it
            // comes back to the mempool afterwards (the outputs are the same).
            returning = pool.removeWithDescendants(txid).dropFirst().map(\.transaction)
        }
        for input in transaction.inputs {
            if let spender = pool.spender(of: input.previousOutput), spender != txid { pool.removeWithDescendants(spender) }
        }
        let check = ConsensusCheck(utxos: utxos, mempool: pool, tipHeight: height, medianTimes: medianTimes,
                                   verifier: verifier)
        let (fee, spent) = try check.check(transaction)

        var ancestorIDs = Set<TransactionID>()
        for input in transaction.inputs where pool.entry(input.previousOutput.txid) != nil {
            ancestorIDs.insert(input.previousOutput.txid)
            ancestorIDs.formUnion(pool.ancestors(of: input.previousOutput.txid))
        }
        // Acceptance order puts parents before children.
        let ancestors = pool.orderedEntries.filter { ancestorIDs.contains($0.txid) }
        let entry = pool.entry(txid) ?? MempoolEntry(transaction: transaction, txid: txid, wtxid: transaction.wtxid,
                                                     fee: fee, vsize: transaction.virtualSize,
                                                     weight: transaction.weight, time: clock(), height: height,
                                                     spentOutputs: spent)
        var assembler = BlockAssembler(previous: tipHash, height: height + 1, medianTimePast: medianTimes[height],
                                       now: clock(), payout: payout)
        assembler.maxWeight = blockMaxWeight
        let block = assembler.assemble(from: pool, forced: ancestors + [entry], held: held) { records[$0] != nil }
        record(block, height: height + 1)
        do {
            try submitToKernel(block, height: height + 1, expectConnected: true)
        } catch ChainError.kernelRejectedBlock(_, _, let reason) {
            // A rule the pre-check does not know (sigops, say): the kernel has the last word.
            forget(block)
            throw ConsensusRejection(reason: reason, details: "the kernel refused the block holding \(txid)")
        }
        mempool = pool
        try followKernel()
        for child in returning { _ = try? accept(child, maxFeeRate: 0, testOnly: false) }
        return block.hash
    }

    /// Drops a block the kernel refused, so the hub's records hold only blocks it made and kept.
    private mutating func forget(_ block: Block) {
        let hash = block.hash
        records.removeValue(forKey: hash)
        children[block.header.previousBlockHash]?.removeAll { $0 == hash }
    }
}
