import Bitcoin

/// An output paying one of the wallet's keys, confirmed or in the mempool.
public struct WalletCoin: Hashable, Sendable {
    /// Core's COINBASE_MATURITY: a coinbase output is spendable from 100 confirmations.
    public static let coinbaseMaturity = 100

    public let outPoint: OutPoint
    public let output: TransactionOutput
    public let path: WalletKeyPath
    /// The height of the block holding it; nil while it is unconfirmed.
    public var height: Int?
    public let isCoinbase: Bool

    public init(outPoint: OutPoint, output: TransactionOutput, path: WalletKeyPath, height: Int?, isCoinbase: Bool) {
        self.outPoint = outPoint
        self.output = output
        self.path = path
        self.height = height
        self.isCoinbase = isCoinbase
    }

    public var value: Int64 { output.value }

    /// 0 while unconfirmed, 1 in the tip block.
    public func confirmations(tipHeight: Int) -> Int {
        guard let height else { return 0 }
        return max(tipHeight - height + 1, 0)
    }

    /// Whether a transaction in the next block may spend it: always for ordinary outputs,
    /// from 100 confirmations for a coinbase (the next block is then 100 deeper, as Core's
    /// `CheckTxInputs` requires).
    public func isMature(tipHeight: Int) -> Bool {
        !isCoinbase || confirmations(tipHeight: tipHeight) >= Self.coinbaseMaturity
    }
}
