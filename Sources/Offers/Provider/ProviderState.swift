import HTLC

/// What a provider reads live before answering: its spendable on-chain balance and the
/// fee rate its estimator gives for the lock.
public struct ProviderState: Sendable, Hashable {
    public let liquiditySat: Int64
    public let feeRate: FeeRate

    public init(liquiditySat: Int64, feeRate: FeeRate) {
        self.liquiditySat = liquiditySat
        self.feeRate = feeRate
    }
}
