/// Where the provider's claim (any version of it) stands on chain.
public enum SubmarineClaimStatus: Sendable, Hashable {
    case confirmed(Int)
    case unconfirmed
    /// Neither in the mempool nor in a block (refused, evicted, or its lock reorged out).
    case missing
}
