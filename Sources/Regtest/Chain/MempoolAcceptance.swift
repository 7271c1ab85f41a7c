import Bitcoin

/// Core's mempool acceptance (`MemPoolAccept::PreChecks`, `ReplacementChecks`, the script
/// checks and the RPC fee cap), in Core's order so the first rule broken is the one Core
/// would name. Scripts are judged by the kernel, never by the hub.
struct MempoolAcceptance {
    let utxos: UTXOSet
    let mempool: Mempool
    let tipHeight: Int
    /// Median time past of each active block, by height.
    let medianTimes: [Int64]
    let policy: MempoolPolicy
    /// The raised mempool minimum (sat/kvB, `hub_setmempoolminfee`); 0: none.
    var mempoolMinFeeRate: Int64 = 0
    /// False while judging a package member whose fee the package's rate carries
    /// (`submitpackage`); the package's total is checked against the same floors instead.
    var checksFeeFloors = true
    let verifier: KernelVerifier
    let now: Int64

    struct Accepted {
        let entry: MempoolEntry
        /// Mempool transactions the new one replaces (direct conflicts and their descendants).
        let replaced: [TransactionID]
    }

    /// Judges `transaction` for the block after the tip. Throws `MempoolRejection` with
    /// Core's reason, or `ChainError.kernel` when the kernel could not be asked.
    func check(_ transaction: Transaction, maxFeeRate: Int64) throws -> Accepted {
        let txid = transaction.txid
        let wtxid = transaction.wtxid

        // CheckTransaction: the reason is the text before the colon of our sanity error.
        do {
            try transaction.checkSanity()
        } catch let BitcoinError.invalidTransaction(why) {
            throw MempoolRejection(reason: String(why.prefix { $0 != ":" }))
        }
        if transaction.isCoinbase { throw MempoolRejection(reason: "coinbase") }
        try checkStandard(transaction)
        if transaction.serialized(includingWitness: false).count < 65 {
            throw MempoolRejection(reason: "tx-size-small")
        }
        if !TransactionFinality.isFinal(transaction, height: tipHeight + 1, time: medianTimes[tipHeight]) {
            throw MempoolRejection(reason: "non-final")
        }
        if let existing = mempool.entry(txid) {
            let reason = existing.wtxid == wtxid ? "txn-already-in-mempool" : "txn-same-nonwitness-data-in-mempool"
            throw MempoolRejection(reason: reason, details: nil)
        }

        // Mempool spends of the same outpoints are conflicts, judged below as a replacement
        // (full RBF: every mempool transaction is replaceable in Core v31).
        var conflicts: [TransactionID] = []
        for input in transaction.inputs {
            if let spender = mempool.spender(of: input.previousOutput), !conflicts.contains(spender) {
                conflicts.append(spender)
            }
        }

        // Inputs: confirmed coins or outputs of mempool transactions.
        if transaction.outputs.indices.contains(where: { utxos.coin(OutPoint(txid: txid, index: UInt32($0))) != nil }) {
            throw MempoolRejection(.alreadyInUTXOSet, reason: "txn-already-known")
        }
        var spent: [TransactionOutput] = []
        var coinHeights: [Int] = []
        for input in transaction.inputs {
            if let coin = utxos.coin(input.previousOutput) {
                spent.append(coin.output)
                coinHeights.append(coin.height)
            } else if let output = mempool.output(input.previousOutput) {
                spent.append(output)
                coinHeights.append(tipHeight + 1)
            } else {
                throw MempoolRejection.missingInputs
            }
        }
        if !TransactionFinality.sequenceLocksSatisfied(transaction, coinHeights: coinHeights, tipHeight: tipHeight,
                                                        medianTimes: medianTimes) {
            throw MempoolRejection(reason: "non-BIP68-final")
        }
        // Core's CheckTxInputs: the spend is in the next block, so depth counts from tip + 1.
        for input in transaction.inputs {
            if let coin = utxos.coin(input.previousOutput), coin.isCoinbase,
               tipHeight + 1 - coin.height < RegtestParameters.coinbaseMaturity {
                throw MempoolRejection(reason: "bad-txns-premature-spend-of-coinbase",
                                       details: "tried to spend coinbase at depth \(tipHeight + 1 - coin.height)")
            }
        }
        var valueIn: Int64 = 0
        for output in spent {
            valueIn += output.value
            guard output.value >= 0, output.value <= Transaction.maxMoney, valueIn <= Transaction.maxMoney else {
                throw MempoolRejection(reason: "bad-txns-inputvalues-outofrange")
            }
        }
        let valueOut = transaction.outputs.reduce(Int64(0)) { $0 + $1.value }
        guard valueIn >= valueOut else {
            throw MempoolRejection(reason: "bad-txns-in-belowout",
                                   details: "value in (\(Money.format(valueIn))) < value out (\(Money.format(valueOut)))")
        }
        // Core's IsWitnessStandard, after CheckTxInputs and before the fee checks.
        if !WitnessStandardness.isStandard(transaction, spentOutputs: spent) {
            throw MempoolRejection(reason: WitnessStandardness.reason)
        }
        let fee = valueIn - valueOut
        let vsize = transaction.virtualSize

        // Ephemeral dust (v29+): one dust output is allowed only in a zero-fee transaction.
        if fee != 0 && transaction.outputs.contains(where: { OutputPolicy.isDust($0, dustRelayFeeRate: policy.dustRelayFeeRate) }) {
            throw MempoolRejection(reason: "dust", details: "tx with dust output must be 0-fee")
        }
        // Core's CheckFeeRate: the mempool's minimum first, then the relay floor.
        let mempoolMinimumFee = Money.fee(ratePerKvB: mempoolMinFeeRate, vsize: vsize)
        if checksFeeFloors && mempoolMinFeeRate > 0 && fee < mempoolMinimumFee {
            throw MempoolRejection(reason: "mempool min fee not met", details: "\(fee) < \(mempoolMinimumFee)")
        }
        let minimumFee = Money.fee(ratePerKvB: policy.minRelayFeeRate, vsize: vsize)
        if checksFeeFloors && fee < minimumFee {
            throw MempoolRejection(reason: "min relay fee not met", details: "\(fee) < \(minimumFee)")
        }

        let replaced = try checkReplacement(txid: txid, transaction: transaction, fee: fee, vsize: vsize, conflicts: conflicts)
        try checkClusterLimits(transaction, replacing: Set(replaced))

        for index in transaction.inputs.indices {
            let valid: Bool
            do {
                valid = try verifier.verify(transaction: transaction, inputIndex: index, spentOutputs: spent)
            } catch {
                throw ChainError.kernel("script verification of \(txid) input \(index) could not run: \(error)")
            }
            // The kernel checks consensus flags only; MINIMALIF is one of Core's standard
            // flags a v0 witness script can break while staying consensus-valid.
            let policyError = valid ? Self.policyScriptError(transaction.inputs[index], spending: spent[index]) : nil
            if !valid || policyError != nil {
                let error = policyError ?? ScriptFailureDiagnosis.describe(transaction: transaction, inputIndex: index,
                                                                           spentOutputs: spent, verifier: verifier)
                throw MempoolRejection(reason: "mempool-script-verify-flag-failed (\(error))",
                                       details: "input \(index) of \(txid) (wtxid \(wtxid)), spending "
                                           + "\(transaction.inputs[index].previousOutput)")
            }
        }

        if maxFeeRate > 0 && fee > Money.fee(ratePerKvB: maxFeeRate, vsize: vsize) {
            throw MempoolRejection(.maxFeeExceeded, reason: "max-fee-exceeded")
        }
        let entry = MempoolEntry(transaction: transaction, txid: txid, wtxid: wtxid, fee: fee, vsize: vsize,
                                 weight: transaction.weight, time: now, height: tipHeight, spentOutputs: spent)
        return Accepted(entry: entry, replaced: replaced)
    }

    /// Core v31's cluster limits: the cluster the transaction would join (its mempool
    /// parents' clusters merged, without what it replaces) plus itself stays within
    /// `clusterCountLimit` transactions and 4 x `clusterSizeLimitVBytes` weight units, or it
    /// is `too-large-cluster` (Core gives no details). The hub's weight is the plain BIP141
    /// weight: Core takes max(weight, 20 x sigop cost), which is the weight for every
    /// transaction whose sigops are no denser than one per 20 weight units (all the node
    /// builds: P2TR and P2WSH spends, P2TR outputs).
    private func checkClusterLimits(_ transaction: Transaction, replacing replaced: Set<TransactionID>) throws {
        let parents = Set(transaction.inputs.map(\.previousOutput.txid)).filter { mempool.entry($0) != nil }
        guard !parents.isEmpty else { return }
        let cluster = mempool.cluster(joining: parents, excluding: replaced)
        let weight = cluster.reduce(transaction.weight) { $0 + (mempool.entry($1)?.weight ?? 0) }
        if cluster.count + 1 > policy.clusterCountLimit || weight > policy.clusterSizeLimitVBytes * 4 {
            throw MempoolRejection(reason: "too-large-cluster")
        }
    }

    /// The script error Core's standard flags find in a consensus-valid input, if any the
    /// hub can tell: MINIMALIF for P2WSH (native or P2SH-wrapped) witness scripts.
    static func policyScriptError(_ input: TransactionInput, spending output: TransactionOutput) -> String? {
        guard let witnessScript = input.witness.stack.last else { return nil }
        var program = output.scriptPubKey
        if program.bytes.count == 23, program.bytes.first == 0xa9,
           let redeemScript = (try? input.scriptSig.opcodes())?.last?.pushedData {
            program = Script(bytes: redeemScript)
        }
        guard case .p2wsh = try? Address(script: program) else { return nil }
        let violates = MinimalIfCheck.violates(witnessScript: Script(bytes: witnessScript),
                                               stack: Array(input.witness.stack.dropLast()))
        return violates == true ? MinimalIfCheck.error : nil
    }

    /// Core's `IsStandardTx` rules that apply to what the hub relays.
    private func checkStandard(_ transaction: Transaction) throws {
        guard (1...3).contains(transaction.version) else { throw MempoolRejection(reason: "version") }
        guard transaction.weight <= 400_000 else { throw MempoolRejection(reason: "tx-size") }
        for input in transaction.inputs {
            guard input.scriptSig.count <= 1_650 else { throw MempoolRejection(reason: "scriptsig-size") }
            guard OutputPolicy.isPushOnly(input.scriptSig) else { throw MempoolRejection(reason: "scriptsig-not-pushonly") }
        }
        let dustCount = transaction.outputs.filter { OutputPolicy.isDust($0, dustRelayFeeRate: policy.dustRelayFeeRate) }.count
        if dustCount > 1 { throw MempoolRejection(reason: "dust") }
    }

    /// Core v31's replacement rules for a transaction spending outpoints that mempool
    /// transactions already spend. Returns every transaction it would evict.
    private func checkReplacement(txid: TransactionID, transaction: Transaction, fee: Int64, vsize: Int,
                                  conflicts: [TransactionID]) throws -> [TransactionID] {
        guard !conflicts.isEmpty else { return [] }
        var evicted = Set(conflicts)
        for conflict in conflicts { evicted.formUnion(mempool.descendants(of: conflict)) }
        if evicted.count > 100 {
            throw MempoolRejection(reason: "too many potential replacements",
                                   details: "rejecting replacement \(txid); too many potential replacements (\(evicted.count) > 100)")
        }
        // A replacement may not spend an output of a transaction it replaces.
        var ancestors = Set<TransactionID>()
        for input in transaction.inputs where mempool.entry(input.previousOutput.txid) != nil {
            ancestors.insert(input.previousOutput.txid)
            ancestors.formUnion(mempool.ancestors(of: input.previousOutput.txid))
        }
        if let spent = conflicts.first(where: ancestors.contains) {
            throw MempoolRejection(reason: "bad-txns-spends-conflicting-tx",
                                   details: "\(txid) spends conflicting transaction \(spent)")
        }
        let evictedEntries = evicted.compactMap { mempool.entry($0) }
        let originalFees = evictedEntries.reduce(Int64(0)) { $0 + $1.fee }
        if fee < originalFees {
            throw MempoolRejection(reason: "insufficient fee", details: "rejecting replacement \(txid), less fees than "
                + "conflicting txs; \(Money.format(fee)) < \(Money.format(originalFees))")
        }
        let additional = fee - originalFees
        let relayFee = Money.fee(ratePerKvB: policy.incrementalRelayFeeRate, vsize: vsize)
        if additional < relayFee {
            throw MempoolRejection(reason: "insufficient fee", details: "rejecting replacement \(txid), not enough "
                + "additional fees to relay; \(Money.format(additional)) < \(Money.format(relayFee))")
        }
        // Core v31 requires the replacement to improve the mempool's feerate diagram. For the
        // evicted set that reduces to: the new fee rate must beat every evicted transaction's
        // own fee rate (compared by cross-multiplication, no rounding).
        for entry in evictedEntries where Int64(fee) * Int64(entry.vsize) <= entry.fee * Int64(vsize) {
            throw MempoolRejection(reason: "replacement-failed",
                                   details: "insufficient feerate: does not improve feerate diagram")
        }
        return mempool.orderedEntries.map(\.txid).filter(evicted.contains)
    }
}
