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

    public init(network: Network, paymentTimeoutSeconds: UInt32 = 60,
                routingReserve: RoutingFeeEstimate = SubmarineTerms.defaultRoutingReserve,
                claimConfirmationTarget: Int = 2, claimBumpStep: FeeRate = ProviderConfiguration.oneSatPerVByte,
                claimPolicy: ClaimPolicy = .default) {
        self.network = network
        self.paymentTimeoutSeconds = paymentTimeoutSeconds
        self.routingReserve = routingReserve
        self.claimConfirmationTarget = claimConfirmationTarget
        self.claimBumpStep = claimBumpStep
        self.claimPolicy = claimPolicy
    }
}
