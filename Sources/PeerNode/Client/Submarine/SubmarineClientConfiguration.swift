import Bitcoin
import HTLC
import Offers

/// The submarine client engine's policy. Defaults are DESIGN's; tests shorten the timers.
public struct SubmarineClientConfiguration: Sendable {
    public var network: Network
    public var quotePolicy: QuotePolicy
    /// Depth at which the provider's claim or our refund makes a swap final (6 on mainnet,
    /// 1 elsewhere: `ClientEngineConfiguration.defaultFinalityConfirmations`).
    public var finalityConfirmations: Int
    /// Confirmation target of the lock's fee estimate: the provider pays only once the lock
    /// confirms, so a slow lock is a slow payment.
    public var lockFeeTargetBlocks: Int
    /// Confirmation target of the first refund's fee estimate; each new block bumps it.
    public var refundFeeTargetBlocks: Int
    /// The least a refund bump adds to the previous version's rate (BIP125 needs more fee
    /// than the replaced one; 1 sat/vB clears the incremental relay fee).
    public var refundBumpStep: FeeRate
    /// The most a refund may pay in fees, as a percentage of the lock: beyond it the
    /// version out there is broadcast again instead of a dearer one.
    public var maxRefundFeePercent: Int64
    /// Per request to the provider.
    public var requestTimeoutMilliseconds: UInt64
    /// Redial backoff for provider connections.
    public var reconnectInitialMilliseconds: UInt64
    public var reconnectMaximumMilliseconds: UInt64
    /// Regtest tests only: lock less than agreed (`SubmarineLockFault`); nil for a client
    /// that keeps its word, and ignored on any other network.
    public var lockFault: SubmarineLockFault?
    /// Cooperative key-path spends (issue 17, `musig2`, on by default): with a provider
    /// whose offer lists `musig2`, the SwapRequest lists it too, the client co-signs the
    /// provider's key-path claim once it has seen the preimage, and asks for a key-path
    /// refund when the provider offers one.
    public var cooperative: Bool
    /// How long a refund round waits for the provider's co-signature.
    public var coopTimeoutMilliseconds: UInt64
    /// Regtest tests only (`CoopFault`): a client that refuses, or never answers, its
    /// provider's cooperative claim request; nil for one that keeps its word, and ignored
    /// on any other network.
    public var coopFault: CoopFault?

    public init(network: Network, quotePolicy: QuotePolicy = QuotePolicy(), finalityConfirmations: Int? = nil,
                lockFeeTargetBlocks: Int = 2, refundFeeTargetBlocks: Int = 2,
                refundBumpStep: FeeRate = try! FeeRate(satPerVByte: 1), maxRefundFeePercent: Int64 = 25,
                requestTimeoutMilliseconds: UInt64 = 15_000, reconnectInitialMilliseconds: UInt64 = 1_000,
                reconnectMaximumMilliseconds: UInt64 = 30_000, lockFault: SubmarineLockFault? = nil,
                cooperative: Bool = true, coopTimeoutMilliseconds: UInt64 = 5_000, coopFault: CoopFault? = nil) {
        self.network = network
        self.quotePolicy = quotePolicy
        self.finalityConfirmations = max(1, finalityConfirmations ?? ClientEngineConfiguration.defaultFinalityConfirmations(network))
        self.lockFeeTargetBlocks = max(1, lockFeeTargetBlocks)
        self.refundFeeTargetBlocks = max(1, refundFeeTargetBlocks)
        self.refundBumpStep = refundBumpStep
        self.maxRefundFeePercent = min(100, max(1, maxRefundFeePercent))
        self.requestTimeoutMilliseconds = requestTimeoutMilliseconds
        self.reconnectInitialMilliseconds = max(1, reconnectInitialMilliseconds)
        self.reconnectMaximumMilliseconds = max(reconnectInitialMilliseconds, reconnectMaximumMilliseconds)
        self.lockFault = network == .regtest ? lockFault : nil
        self.cooperative = cooperative
        self.coopTimeoutMilliseconds = max(1, coopTimeoutMilliseconds)
        self.coopFault = network == .regtest ? coopFault : nil
    }
}
