import Bitcoin

/// An unspent output with what validation needs about where it came from.
public struct Coin: Hashable, Sendable {
    public var output: TransactionOutput
    /// The height of the block that created it.
    public var height: Int
    public var isCoinbase: Bool

    public init(output: TransactionOutput, height: Int, isCoinbase: Bool) {
        self.output = output
        self.height = height
        self.isCoinbase = isCoinbase
    }
}

/// What connecting a block spent, in spending order, so that disconnecting it can put the
/// coins back (Core's undo data).
public struct BlockUndo: Sendable {
    public var spent: [(outpoint: OutPoint, coin: Coin)] = []
}
