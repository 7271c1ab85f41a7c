import HTLC

/// Fee rates for a confirmation target: the backend's `estimatesmartfee`, bounded by a
/// `FeeEstimatePolicy` (floor, cap, fallback when the backend has no data).
///
/// An unreachable backend is an error, not the fallback: a guessed rate quoted to a
/// counterparty while Core is down could be far from the market.
public struct FeeEstimator: Sendable {
    public let backend: any ChainBackend
    public let policy: FeeEstimatePolicy

    public init(backend: any ChainBackend, policy: FeeEstimatePolicy = .default) {
        self.backend = backend
        self.policy = policy
    }

    /// The rate for confirmation within `targetBlocks`, moved into Core's 1...1008.
    public func estimate(targetBlocks: Int) async throws(ChainBackendError) -> ChainFeeEstimate {
        let target = min(max(targetBlocks, FeeEstimatePolicy.targetRange.lowerBound),
                         FeeEstimatePolicy.targetRange.upperBound)
        return policy.apply(try await backend.estimateFee(targetBlocks: target))
    }

    /// Just the rate.
    public func feeRate(targetBlocks: Int) async throws(ChainBackendError) -> FeeRate {
        try await estimate(targetBlocks: targetBlocks).rate
    }
}
