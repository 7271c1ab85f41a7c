/// Which side of a swap this node is on.
public enum SwapRole: String, Sendable, Hashable, CaseIterable {
    /// Pays Lightning, claims on-chain to the destination.
    case client
    /// Holds the Lightning payment, locks on-chain, earns the fee.
    case provider
}
