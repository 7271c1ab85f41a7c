/// After a database loss the store's index counter starts again at 0, but indexes already
/// used on chain must never be handed out twice (a second swap would reuse a revealed
/// preimage and its keys). The store offers only `reserveSwapIndex`, so the counter is moved
/// by reserving, and discarding, indexes up to the highest one recovered.
public enum SwapIndexAdvance {
    /// Reserves indexes until the next one handed out is above `index`; returns how many
    /// were skipped.
    @discardableResult
    public static func advance(_ store: any SwapStore, past index: UInt32) async throws(RecoveryError) -> Int {
        var skipped = 0
        while true {
            let reserved: UInt32
            do { reserved = try await store.reserveSwapIndex() } catch { throw .store(error) }
            skipped += 1
            if reserved >= index { return skipped }
        }
    }
}
