/// "A recovery scan is required before new client swaps" (audit H-5), kept in the store's
/// key-value table with the reason as its value.
///
/// Set at start-up when the database is new or older than the swap index mark: swaps the
/// database does not know may be in flight on chain, and their preimages may be public.
/// Cleared when `recover` completes a scan. While set, `pay`, `swap-out` and `quote` are
/// refused (`RecoveryRequiredError`).
public enum RecoveryFlag {
    static let key = "recovery.required"

    /// The reason recovery is required, or nil when it is not.
    public static func reason(in store: any KeyValueStore) async throws(StoreError) -> String? {
        guard let bytes = try await store.value(forKey: key) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Returns whether a flag was set.
    @discardableResult
    public static func clear(in store: any KeyValueStore) async throws(StoreError) -> Bool {
        try await store.removeValue(forKey: key)
    }
}
