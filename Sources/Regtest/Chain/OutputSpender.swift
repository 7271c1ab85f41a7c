import Bitcoin

/// The transaction that spends an output, as `gettxspendingprevout` reports it: in the
/// mempool (no block), or confirmed in the active chain (its block).
public struct OutputSpender: Sendable {
    public let transaction: Transaction
    /// The active block holding the spend; nil while it is only in the mempool.
    public let blockHash: BlockHash?
}
