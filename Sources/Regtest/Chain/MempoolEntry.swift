import Bitcoin

/// A transaction in the mempool with what was learned when it was accepted.
public struct MempoolEntry: Sendable {
    public let transaction: Transaction
    public let txid: TransactionID
    public let wtxid: TransactionID
    /// Inputs minus outputs, in satoshis.
    public let fee: Int64
    public let vsize: Int
    public let weight: Int
    /// Unix time of acceptance.
    public let time: Int64
    /// The chain height when it was accepted.
    public let height: Int
    /// The outputs its inputs spend, in input order (for scripts, `prevout` and fees).
    public let spentOutputs: [TransactionOutput]
}

/// A mempool entry as `getrawmempool true` / `getmempoolentry` describe it: the entry plus
/// its in-mempool relatives.
public struct MempoolEntryInfo: Sendable {
    public let entry: MempoolEntry
    /// Mempool transactions it spends from (Core's `depends`).
    public let parents: [TransactionID]
    /// Mempool transactions spending from it (Core's `spentby`).
    public let children: [TransactionID]
    /// Counts, sizes and fees including the entry itself, as Core reports them.
    public let ancestorCount: Int
    public let ancestorSize: Int
    public let ancestorFees: Int64
    public let descendantCount: Int
    public let descendantSize: Int
    public let descendantFees: Int64
}
