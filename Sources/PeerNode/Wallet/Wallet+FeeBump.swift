import Bitcoin
import HTLC

extension Wallet {
    /// Replaces an unconfirmed wallet transaction with one paying `newRate` (RBF): the same
    /// inputs and payment outputs, the extra fee taken from its change (dropped when it
    /// would fall below dust). The replacement pays at least the original fee plus the
    /// incremental relay fee for its own size (BIP125 rules 3 and 4) and a strictly higher
    /// fee rate (Core's feerate-diagram check).
    public func bumpFee(txid: TransactionID, newRate: FeeRate) async throws(WalletError) -> WalletTransaction {
        let original = try pendingTransaction(txid)
        guard let spent = original.spentOutputs, let oldFee = original.fee else {
            throw WalletError.notReplaceable(txid, reason: "it spends coins the wallet does not hold")
        }
        if let child = state.pendingChildren(of: txid).first {
            throw WalletError.notReplaceable(txid, reason: "unconfirmed transaction \(child) spends its outputs; "
                + "bump that one with a child (CPFP) or wait for it")
        }
        var outputs = original.transaction.outputs
        guard let changeIndex = outputs.lastIndex(where: { keys.path(for: $0.scriptPubKey)?.chain == .change }) else {
            throw WalletError.notReplaceable(txid, reason: "it has no change output to pay a higher fee from")
        }
        let rate = effectiveRate(newRate)
        let oldSize = original.virtualSize
        let lockTime = original.transaction.lockTime
        let inputs = zip(original.transaction.inputs, spent).map { (outPoint: $0.previousOutput, output: $1) }
        func requiredFee(_ size: Int) -> Int64 {
            var fee = max(rate.fee(forVirtualSize: size),
                          oldFee + configuration.incrementalRelayFeeRate.fee(forVirtualSize: size))
            if fee * Int64(oldSize) <= oldFee * Int64(size) { fee = oldFee * Int64(size) / Int64(oldSize) + 1 }
            return fee
        }

        let change = outputs[changeIndex].value
        let sizeWithChange = TaprootSpendSize.virtualSize(inputCount: inputs.count, outputs: outputs, lockTime: lockTime)
        let reducedChange = change - (requiredFee(sizeWithChange) - oldFee)
        let expectedSize: Int
        if reducedChange >= configuration.dustThreshold(for: outputs[changeIndex].scriptPubKey) {
            outputs[changeIndex].value = reducedChange
            expectedSize = sizeWithChange
        } else {
            outputs.remove(at: changeIndex)
            let sizeWithout = TaprootSpendSize.virtualSize(inputCount: inputs.count, outputs: outputs, lockTime: lockTime)
            guard !outputs.isEmpty, oldFee + change >= requiredFee(sizeWithout) else {
                throw WalletError.insufficientFunds(needed: requiredFee(sizeWithout), available: oldFee + change)
            }
            expectedSize = sizeWithout
        }
        let replacement = try signAndReserve(spending: inputs, outputs: outputs, lockTime: lockTime,
                                             expectedSize: expectedSize)
        return try await broadcast(replacement)
    }

    /// Child pays for parent (CPFP): spends the wallet's unspent outputs of an unconfirmed
    /// transaction back to a change address with a fee that brings the whole unconfirmed
    /// package (the parent, its unconfirmed wallet ancestors, and the child) to `feeRate`.
    /// For a stuck transaction that cannot be replaced, e.g. a payment received, or one
    /// whose outputs others already rely on.
    public func bumpByChild(of parentID: TransactionID, feeRate: FeeRate) async throws(WalletError) -> WalletTransaction {
        _ = try pendingTransaction(parentID)
        let package = try unconfirmedPackage(of: parentID)
        let parent = state.pending[parentID]!
        let coins = parent.transaction.outputs.indices.compactMap { index -> WalletCoin? in
            let outPoint = OutPoint(txid: parentID, index: UInt32(index))
            guard let coin = state.coins[outPoint], state.spenders[outPoint] == nil,
                  state.reservations[outPoint] == nil else { return nil }
            return coin
        }
        guard !coins.isEmpty else {
            throw WalletError.notReplaceable(parentID, reason: "no unspent output of it pays the wallet")
        }
        let rate = effectiveRate(feeRate)
        let lockTime = antiFeeSnipingLockTime
        let change = keys.peekNextAddress(.change)
        let childOutputs = [TransactionOutput(value: 0, scriptPubKey: change.scriptPubKey)]
        let childSize = TaprootSpendSize.virtualSize(inputCount: coins.count, outputs: childOutputs, lockTime: lockTime)
        let childFee = max(rate.fee(forVirtualSize: package.size + childSize) - package.fee,
                           configuration.minimumRelayFeeRate.fee(forVirtualSize: childSize))
        let total = coins.reduce(Int64(0)) { $0 + $1.value }
        let dust = configuration.dustThreshold(for: change.scriptPubKey)
        guard total - childFee >= dust else {
            throw WalletError.insufficientFunds(needed: childFee + dust, available: total)
        }
        let output = TransactionOutput(value: total - childFee, scriptPubKey: keys.nextAddress(.change).scriptPubKey)
        let child = try signAndReserve(spending: coins.map { ($0.outPoint, $0.output) }, outputs: [output],
                                       lockTime: lockTime, expectedSize: childSize)
        return try await broadcast(child)
    }

    /// An unconfirmed wallet transaction, or why there is none.
    private func pendingTransaction(_ txid: TransactionID) throws(WalletError) -> WalletTransaction {
        if let pending = state.pending[txid] { return pending }
        if state.confirmed[txid] != nil { throw WalletError.notReplaceable(txid, reason: "it is already confirmed") }
        throw WalletError.noSuchTransaction(txid)
    }

    /// Fee and vsize of `txid` with its unconfirmed ancestors, which a miner takes together
    /// with a child. Every one must be the wallet's, or their fees are unknown.
    private func unconfirmedPackage(of txid: TransactionID) throws(WalletError) -> (fee: Int64, size: Int) {
        var fee: Int64 = 0
        var size = 0
        var visited = Set<TransactionID>()
        var queue = [txid]
        while let next = queue.popLast() {
            guard visited.insert(next).inserted, let record = state.pending[next] else { continue }
            guard let recordFee = record.fee else {
                throw WalletError.notReplaceable(txid, reason: "the fee of unconfirmed \(next) is unknown: it spends "
                    + "coins the wallet does not hold")
            }
            fee += recordFee
            size += record.virtualSize
            queue.append(contentsOf: record.transaction.inputs.map(\.previousOutput.txid))
        }
        return (fee, size)
    }
}
