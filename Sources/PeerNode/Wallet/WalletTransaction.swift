import Bitcoin

/// A transaction that touches the wallet (spends its coins or pays its keys), with what the
/// wallet knows of the outputs it spends.
public struct WalletTransaction: Hashable, Sendable {
    public let transaction: Transaction
    public let txid: TransactionID
    /// The outputs its inputs spend, in input order, when every input spent a wallet coin;
    /// nil when some input is someone else's (a payment received).
    public let spentOutputs: [TransactionOutput]?
    /// The block height, nil while unconfirmed.
    public var height: Int?

    public init(transaction: Transaction, spentOutputs: [TransactionOutput]?, height: Int? = nil) {
        self.transaction = transaction
        txid = transaction.txid
        self.spentOutputs = spentOutputs
        self.height = height
    }

    /// Inputs minus outputs, when every input is the wallet's.
    public var fee: Int64? {
        guard let spentOutputs else { return nil }
        return spentOutputs.reduce(Int64(0)) { $0 + $1.value } - transaction.outputs.reduce(Int64(0)) { $0 + $1.value }
    }

    public var virtualSize: Int { transaction.virtualSize }

    /// Whether the wallet funded it entirely, so its unconfirmed outputs can be trusted
    /// (only the wallet could double-spend them).
    public var isOwn: Bool { spentOutputs != nil }
}
