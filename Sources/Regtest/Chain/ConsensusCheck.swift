import Bitcoin

/// The consensus rules one transaction must meet to be in the next block, and nothing
/// else: what `hub_mine_transaction` checks before it builds a block around a transaction
/// the mempool may refuse for policy. Mirrors the consensus half of `MempoolAcceptance`
/// (kept apart so the mempool's order of checks, which decides the reason Core names,
/// stays untouched). Scripts are the kernel's verdict with every consensus flag; the kernel
/// then validates the whole block as well, so anything missed here is still refused.
struct ConsensusCheck {
    let utxos: UTXOSet
    /// The mempool the block draws parents from (conflicts already removed).
    let mempool: Mempool
    let tipHeight: Int
    let medianTimes: [Int64]
    let verifier: KernelVerifier

    /// Checks `transaction` for the block after the tip and returns its fee.
    func check(_ transaction: Transaction) throws -> (fee: Int64, spent: [TransactionOutput]) {
        let txid = transaction.txid
        do {
            try transaction.checkSanity()
        } catch let BitcoinError.invalidTransaction(why) {
            throw ConsensusRejection(reason: String(why.prefix { $0 != ":" }))
        }
        if transaction.isCoinbase { throw ConsensusRejection(reason: "bad-cb-multiple") }
        if transaction.weight > RegtestParameters.maxBlockWeight - RegtestParameters.coinbaseWeightReserve {
            throw ConsensusRejection(reason: "bad-blk-weight")
        }
        if !TransactionFinality.isFinal(transaction, height: tipHeight + 1, time: medianTimes[tipHeight]) {
            throw ConsensusRejection(reason: "bad-txns-nonfinal")
        }
        var spent: [TransactionOutput] = []
        var coinHeights: [Int] = []
        for input in transaction.inputs {
            if let coin = utxos.coin(input.previousOutput) {
                if coin.isCoinbase && tipHeight + 1 - coin.height < RegtestParameters.coinbaseMaturity {
                    throw ConsensusRejection(reason: "bad-txns-premature-spend-of-coinbase",
                                             details: "tried to spend coinbase at depth \(tipHeight + 1 - coin.height)")
                }
                spent.append(coin.output)
                coinHeights.append(coin.height)
            } else if let output = mempool.output(input.previousOutput) {
                spent.append(output)
                coinHeights.append(tipHeight + 1)
            } else {
                throw ConsensusRejection(reason: "bad-txns-inputs-missingorspent")
            }
        }
        if !TransactionFinality.sequenceLocksSatisfied(transaction, coinHeights: coinHeights, tipHeight: tipHeight,
                                                        medianTimes: medianTimes) {
            throw ConsensusRejection(reason: "bad-txns-nonfinal", details: "contains a non-BIP68-final transaction")
        }
        let valueIn = spent.reduce(Int64(0)) { $0 + $1.value }
        let valueOut = transaction.outputs.reduce(Int64(0)) { $0 + $1.value }
        guard valueIn <= Transaction.maxMoney else { throw ConsensusRejection(reason: "bad-txns-inputvalues-outofrange") }
        guard valueIn >= valueOut else {
            throw ConsensusRejection(reason: "bad-txns-in-belowout",
                                     details: "value in (\(Money.format(valueIn))) < value out (\(Money.format(valueOut)))")
        }
        for index in transaction.inputs.indices {
            let valid: Bool
            do {
                valid = try verifier.verify(transaction: transaction, inputIndex: index, spentOutputs: spent)
            } catch {
                throw ChainError.kernel("script verification of \(txid) input \(index) could not run: \(error)")
            }
            if !valid {
                let error = ScriptFailureDiagnosis.describe(transaction: transaction, inputIndex: index,
                                                            spentOutputs: spent, verifier: verifier)
                throw ConsensusRejection(reason: "block-script-verify-flag-failed (\(error))",
                                         details: "input \(index) of \(txid) (wtxid \(transaction.wtxid)), spending "
                                             + "\(transaction.inputs[index].previousOutput)")
            }
        }
        return (valueIn - valueOut, spent)
    }
}
