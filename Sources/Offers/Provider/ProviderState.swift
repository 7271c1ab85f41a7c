import HTLC

/// What a provider reads live before answering: what its wallet can lock now, what waits
/// for the next block, and the fee rate its estimator gives for the lock.
public struct ProviderState: Sendable, Hashable {
    /// What a lock may spend now (confirmed coins and the wallet's own unconfirmed change
    /// within its share of the cluster limits).
    public let liquiditySat: Int64
    public let feeRate: FeeRate
    /// What becomes lockable after the next block; named in a refusal for capacity.
    public let waitingSat: Int64
    /// What the provider's Lightning node can send now (its channels' outbound balance), for
    /// `onchain_to_ln`; nil when not read, and then that direction is not offered.
    public let lightningOutboundSat: Int64?

    public init(liquiditySat: Int64, feeRate: FeeRate, waitingSat: Int64 = 0, lightningOutboundSat: Int64? = nil) {
        self.liquiditySat = liquiditySat
        self.feeRate = feeRate
        self.waitingSat = waitingSat
        self.lightningOutboundSat = lightningOutboundSat
    }
}
