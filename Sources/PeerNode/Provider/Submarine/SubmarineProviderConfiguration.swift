import Bitcoin
import HTLC
import Offers

/// How the submarine (`onchain_to_ln`) provider engine runs its swaps.
public struct SubmarineProviderConfiguration: Sendable {
    public var network: Network
    /// How long LND keeps looking for a route for one payment.
    public var paymentTimeoutSeconds: UInt32
    /// The most the route may cost, on top of the invoice: the routing reserve the offer's
    /// maximum was sized with (`SubmarineTerms.routingReserve`).
    public var routingReserve: RoutingFeeEstimate
    /// Confirmation target for the claim's fee estimate; bumps go above it.
    public var claimConfirmationTarget: Int
    /// What each claim bump adds at least (BIP125: more than the incremental relay fee).
    public var claimBumpStep: FeeRate
    /// When to bump the claim, and the share of the lock it may pay.
    public var claimPolicy: ClaimPolicy
    /// How long the provider waits for its client's co-signature of a cooperative claim
    /// (a client connection included) before it claims through the script path.
    public var coopTimeoutMilliseconds: UInt64
    /// Regtest tests only (`CoopFault`): a provider that refuses, or never answers, a
    /// client's cooperative refund request; nil for one that keeps its word, and ignored
    /// on any other network.
    public var coopFault: CoopFault?

    public init(network: Network, paymentTimeoutSeconds: UInt32 = 60,
                routingReserve: RoutingFeeEstimate = SubmarineTerms.defaultRoutingReserve,
                claimConfirmationTarget: Int = 2, claimBumpStep: FeeRate = ProviderConfiguration.oneSatPerVByte,
                claimPolicy: ClaimPolicy = .default, coopTimeoutMilliseconds: UInt64 = 5_000, coopFault: CoopFault? = nil) {
        self.network = network
        self.paymentTimeoutSeconds = paymentTimeoutSeconds
        self.routingReserve = routingReserve
        self.claimConfirmationTarget = claimConfirmationTarget
        self.claimBumpStep = claimBumpStep
        self.claimPolicy = claimPolicy
        self.coopTimeoutMilliseconds = max(1, coopTimeoutMilliseconds)
        self.coopFault = network == .regtest ? coopFault : nil
    }
}
