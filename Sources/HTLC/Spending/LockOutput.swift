import Bitcoin

/// The lock as it sits on chain: the outpoint a claim or refund spends and its value.
public struct LockOutput: Sendable, Hashable {
    public let outPoint: OutPoint
    /// Satoshis in the lock output.
    public let value: Int64

    public init(outPoint: OutPoint, value: Int64) {
        self.outPoint = outPoint
        self.value = value
    }
}
