extension ProviderEngine {
    /// Where the fee of a lock's withdrawal is kept (sat, decimal text): the lock that
    /// never confirmed cost nothing, the transaction that took its inputs back did, and
    /// the event log has no event for it (the swap ends `cancelled` once the withdrawal is
    /// deep). The accounting reads it (`SwapHistory.lockWithdrawalFeeSat`).
    public static func lockWithdrawalFeeKey(_ swapID: String) -> String { "provider.lock_withdrawal_fee_sat.\(swapID)" }

    /// The withdrawal fee recorded for `swapID`; nil when the lock was never taken back.
    public static func recordedLockWithdrawalFee(_ swapID: String, in store: any KeyValueStore) async throws(StoreError) -> Int64? {
        guard let bytes = try await store.value(forKey: lockWithdrawalFeeKey(swapID)) else { return nil }
        guard let fee = Int64(String(decoding: bytes, as: UTF8.self)), fee >= 0 else {
            throw .corrupt("the lock withdrawal fee recorded for swap \(swapID) is not a number")
        }
        return fee
    }

    /// Records the fee `withdrawal` pays (its wallet inputs less its outputs). The wallet
    /// hands back the same pending withdrawal when asked again, so the key holds the fee of
    /// the one transaction that takes the lock's inputs back. A failed write is only noted:
    /// the swap is unaffected, its report then leaves the fee out.
    func recordLockWithdrawal(_ withdrawal: WalletTransaction, swapID: String) async {
        guard let spent = withdrawal.spentOutputs else { return }
        let fee = spent.reduce(Int64(0)) { $0 + $1.value } - withdrawal.transaction.outputs.reduce(Int64(0)) { $0 + $1.value }
        do {
            try await dependencies.store.setValue(Array(String(fee).utf8), forKey: Self.lockWithdrawalFeeKey(swapID))
        } catch {
            log("provider swap \(swapID): could not record the lock withdrawal's fee: \(error)")
        }
    }
}
