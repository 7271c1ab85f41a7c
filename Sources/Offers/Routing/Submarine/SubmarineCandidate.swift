import HTLC

/// One provider priced for paying X over `onchain_to_ln` (a submarine swap): the client
/// locks `lockAmountSat` from its savings, the provider pays the contact's invoice of
/// exactly X and claims the lock. Every part of the cost, as the user sees it.
public struct SubmarineCandidate: Sendable, Equatable {
    public let provider: ProviderOffer
    /// The contract type the client would lock into: `taproot_boltz` when offered, else `p2wsh_v2`.
    public let contractType: ContractType
    /// X: the invoice the provider pays, what the payee receives.
    public let amountSat: Int64
    /// `base_fee_sat + floor(X × fee_ppm / 1e6)` under the offer's `onchain_to_ln` terms.
    public let serviceFeeSat: Int64
    /// The provider's claim of the lock (`onchain_fee_sat` of those terms).
    public let providerOnchainFeeSat: Int64
    /// X + service fee + provider on-chain fee: the quote's `total_sat`, what the lock holds.
    public let lockAmountSat: Int64
    /// The lock transaction's own miner fee, paid by the client's wallet beside the lock.
    public let lockFeeSat: Int64

    /// Everything paid beyond X.
    public var totalCostSat: Int64 { serviceFeeSat + providerOnchainFeeSat + lockFeeSat }
    /// What leaves the client's savings: the lock and its miner fee.
    public var spendSat: Int64 { lockAmountSat + lockFeeSat }
    /// The fee a quote carries (service + provider on-chain), which the client's
    /// `QuotePolicy` bounds.
    public var providerFeeSat: Int64 { serviceFeeSat + providerOnchainFeeSat }
}
