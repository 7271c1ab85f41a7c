import Bitcoin

/// The fees a provider pays for a lock apart from the lock's own, kept beside the event
/// log because no event carries them: the child that lifts a stuck lock (CPFP), and the
/// withdrawal that takes a lock that never confirmed back. The accounting reads them
/// (`SwapHistory`), so the report's net is what the wallet lost.
extension ProviderEngine {
    /// Where the fee of a lock's withdrawal is kept (sat, decimal text): the lock that
    /// never confirmed cost nothing, the transaction that took its inputs back did, and
    /// the event log has no event for it (the swap ends `cancelled` once the withdrawal is
    /// deep). The accounting reads it (`SwapHistory.lockWithdrawalFeeSat`).
    public static func lockWithdrawalFeeKey(_ swapID: String) -> String { "provider.lock_withdrawal_fee_sat.\(swapID)" }

    /// The withdrawal fee recorded for `swapID`; nil when the lock was never taken back.
    public static func recordedLockWithdrawalFee(_ swapID: String, in store: any KeyValueStore) async throws(StoreError) -> Int64? {
        try await store.amount(forKey: lockWithdrawalFeeKey(swapID), what: "the lock withdrawal fee recorded for swap \(swapID)")
    }

    /// Records the fee `withdrawal` pays. The wallet hands back the same pending withdrawal
    /// when asked again, so the key holds the fee of the one transaction that takes the
    /// lock's inputs back. A failed write is only noted: the swap is unaffected, its report
    /// then leaves the fee out.
    func recordLockWithdrawal(_ withdrawal: WalletTransaction, swapID: String) async {
        await record(fee: withdrawal, key: Self.lockWithdrawalFeeKey(swapID), swapID: swapID, what: "the lock's withdrawal")
    }

    /// Where the fee of the child paying for a stuck lock is kept (sat, decimal text). The
    /// lock's change has one output, so one child at a time spends it: a newer child (the
    /// first evicted) replaces the record.
    public static func lockChildFeeKey(_ swapID: String) -> String { "provider.lock_child_fee_sat.\(swapID)" }

    /// The child's fee recorded for `swapID`; nil when the lock never needed one.
    public static func recordedLockChildFee(_ swapID: String, in store: any KeyValueStore) async throws(StoreError) -> Int64? {
        try await store.amount(forKey: lockChildFeeKey(swapID), what: "the lock child fee recorded for swap \(swapID)")
    }

    func recordLockChild(_ child: WalletTransaction, swapID: String) async {
        await record(fee: child, key: Self.lockChildFeeKey(swapID), swapID: swapID, what: "the lock's child")
    }

    /// Writes what `transaction` pays in fees (its wallet inputs less its outputs) under `key`.
    private func record(fee transaction: WalletTransaction, key: String, swapID: String, what: String) async {
        guard let fee = transaction.fee else { return }
        do {
            try await dependencies.store.setAmount(fee, forKey: key)
        } catch {
            log("provider swap \(swapID): could not record the fee of \(what): \(error)")
        }
    }
}
