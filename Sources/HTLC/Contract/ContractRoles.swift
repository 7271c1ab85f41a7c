/// Who holds which key of a contract. The scripts are the same in both swap directions;
/// only the parties behind the claim and refund keys change places.
///
/// - `reverse` (`ln_to_onchain`): the client pays Lightning, the provider locks on chain.
///   The client claims with the preimage, the provider refunds after the timeout.
/// - `submarine` (`onchain_to_ln`): the client locks on chain, the provider pays the
///   client's invoice and learns the preimage from that payment. The provider claims,
///   the client refunds.
///
/// The roles matter to the Taproot internal key, which is KeyAgg(provider, client) in
/// that order whichever side claims (as Boltz aggregates its own key first in both of its
/// swap types), and to how a contract describes itself.
public enum ContractRoles: String, Sendable, Hashable, CaseIterable {
    case reverse
    case submarine

    /// The party whose key is the claim key.
    public var claimer: ContractParty { self == .reverse ? .client : .provider }
    /// The party whose key is the refund key.
    public var refunder: ContractParty { self == .reverse ? .provider : .client }
}

/// One side of a swap.
public enum ContractParty: String, Sendable, Hashable {
    case client
    case provider
}
