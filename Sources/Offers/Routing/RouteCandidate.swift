import HTLC

/// One provider priced for paying X: every part of the cost, as the user sees it.
public struct RouteCandidate: Sendable, Equatable {
    public let provider: ProviderOffer
    /// The contract type the client would ask for: `taproot_boltz` when offered, else `p2wsh_v2`.
    public let contractType: ContractType
    /// X: what the destination receives.
    public let amountSat: Int64
    /// ceil(rate × claim_vsize): the claim transaction's fee, paid out of the lock.
    public let claimFeeSat: Int64
    /// X + claim fee: the amount to quote and lock.
    public let lockAmountSat: Int64
    public let serviceFeeSat: Int64
    public let providerOnchainFeeSat: Int64
    /// lock amount + service fee + provider on-chain fee: the invoice.
    public let invoiceTotalSat: Int64
    public let routingFeeSat: Int64

    /// Everything paid beyond X.
    public var totalCostSat: Int64 { serviceFeeSat + providerOnchainFeeSat + claimFeeSat + routingFeeSat }
    /// What leaves the client's Lightning balance.
    public var spendSat: Int64 { invoiceTotalSat + routingFeeSat }
}
