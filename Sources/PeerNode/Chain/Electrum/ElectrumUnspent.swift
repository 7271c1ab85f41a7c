import Bitcoin

/// An unspent output paying a script hash, as the server sees it (mempool spends
/// included); `height` 0 means the output is in the mempool.
public struct ElectrumUnspent: Sendable, Equatable {
    public let outPoint: OutPoint
    public let valueSat: Int64
    public let height: Int

    public init(outPoint: OutPoint, valueSat: Int64, height: Int) {
        self.outPoint = outPoint
        self.valueSat = valueSat
        self.height = height
    }
}
