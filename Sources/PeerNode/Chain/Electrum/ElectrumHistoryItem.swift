import Bitcoin

/// One transaction touching a script hash: `height` is its block's height when confirmed,
/// 0 in the mempool with confirmed inputs, -1 in the mempool with an unconfirmed input.
public struct ElectrumHistoryItem: Sendable, Equatable {
    public let txid: TransactionID
    public let height: Int
    /// The fee in sat, which the server gives for mempool entries only.
    public let feeSat: Int64?

    public init(txid: TransactionID, height: Int, feeSat: Int64?) {
        self.txid = txid
        self.height = height
        self.feeSat = feeSat
    }

    public var isConfirmed: Bool { height > 0 }
}
