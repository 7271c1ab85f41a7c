import Bitcoin

/// Where the provider's claim (any version of it) stands on chain.
public enum SubmarineClaimStatus: Sendable, Hashable {
    /// The version `txid` (the last signed, or an earlier one mined before its bump) is in
    /// a block, this many deep.
    case confirmed(Int, txid: TransactionID)
    case unconfirmed
    /// Neither in the mempool nor in a block (refused, evicted, or its lock reorged out).
    case missing
}
