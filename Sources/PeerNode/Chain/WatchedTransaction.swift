import Bitcoin

/// A transaction that pays a watched script or spends a watched outpoint, and where it is.
public struct WatchedTransaction: Hashable, Sendable {
    public let transaction: Transaction
    public let txid: TransactionID
    /// Its outputs paying watched scripts.
    public let received: [ReceivedOutput]
    /// Its inputs spending watched outpoints.
    public let spent: [SpentOutpoint]
    /// The block holding it; nil while unconfirmed.
    public let block: ChainTip?
    /// 0 unconfirmed, 1 in the tip block.
    public let confirmations: Int

    public init(transaction: Transaction, txid: TransactionID, received: [ReceivedOutput], spent: [SpentOutpoint],
                block: ChainTip?, confirmations: Int) {
        self.transaction = transaction
        self.txid = txid
        self.received = received
        self.spent = spent
        self.block = block
        self.confirmations = confirmations
    }
}

/// An output paying a watched script.
public struct ReceivedOutput: Hashable, Sendable {
    public let outpoint: OutPoint
    public let output: TransactionOutput

    public init(outpoint: OutPoint, output: TransactionOutput) {
        self.outpoint = outpoint
        self.output = output
    }
}

/// An input spending a watched outpoint.
public struct SpentOutpoint: Hashable, Sendable {
    public let outpoint: OutPoint
    public let inputIndex: Int

    public init(outpoint: OutPoint, inputIndex: Int) {
        self.outpoint = outpoint
        self.inputIndex = inputIndex
    }
}
