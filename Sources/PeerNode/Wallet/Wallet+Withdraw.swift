import Bitcoin
import HTLC

extension Wallet {
    /// Spends the inputs of `transaction` (a lock the wallet signed that has not confirmed)
    /// back to one fresh change address: a double spend that makes it unconfirmable (audit
    /// H-4). When the original is in the mempool (`originalFee` given) this is a BIP125
    /// replacement: at least that fee plus the incremental relay fee for its own size, at a
    /// higher rate. The caller checks first that nothing spends the original (a claim, or
    /// other locks chained on its change): replacing it would evict them.
    ///
    /// Idempotent: when an unconfirmed transaction other than the original already spends
    /// one of its inputs (an earlier withdrawal), that one is returned and nothing is built.
    public func withdraw(_ transaction: Transaction, feeRate: FeeRate, originalFee: Int64?) async throws(WalletError)
        -> WalletTransaction {
        let txid = transaction.txid
        for input in transaction.inputs {
            if let spender = state.spenders[input.previousOutput], spender != txid, let pending = state.pending[spender] {
                return pending
            }
        }
        var inputs: [(outPoint: OutPoint, output: TransactionOutput)] = []
        for input in transaction.inputs {
            guard let coin = state.coins[input.previousOutput] else {
                throw WalletError.notReplaceable(txid, reason: "input \(input.previousOutput) is not an unspent coin of the wallet")
            }
            inputs.append((coin.outPoint, coin.output))
        }
        // A prepared lock never broadcast still holds its coins' reservation.
        if state.pending[txid] == nil { state.releaseReservations(of: txid) }
        let rate = effectiveRate(feeRate)
        let lockTime = antiFeeSnipingLockTime
        let change = keys.peekNextAddress(.change)
        let size = TaprootSpendSize.virtualSize(inputCount: inputs.count,
                                                outputs: [TransactionOutput(value: 0, scriptPubKey: change.scriptPubKey)],
                                                lockTime: lockTime)
        var fee = rate.fee(forVirtualSize: size)
        if let originalFee {
            fee = max(fee, originalFee + configuration.incrementalRelayFeeRate.fee(forVirtualSize: size))
            let originalSize = transaction.virtualSize
            if fee * Int64(originalSize) <= originalFee * Int64(size) { fee = originalFee * Int64(size) / Int64(originalSize) + 1 }
        }
        let total = inputs.reduce(Int64(0)) { $0 + $1.output.value }
        guard total - fee >= configuration.dustThreshold(for: change.scriptPubKey) else {
            throw WalletError.insufficientFunds(needed: fee + configuration.dustThreshold(for: change.scriptPubKey), available: total)
        }
        let output = TransactionOutput(value: total - fee, scriptPubKey: keys.nextAddress(.change).scriptPubKey)
        let built = try signAndReserve(spending: inputs, outputs: [output], lockTime: lockTime, expectedSize: size)
        return try await broadcast(built)
    }
}
