import Bitcoin

/// A lock transaction as the client saw it: from the provider's push (`lock_tx`), from
/// the chain follower, or read back from the chain. Nothing is trusted until
/// `LockVerifier` has checked it against the contract the client computed itself.
public struct ClientLockSighting: Sendable, Hashable {
    public enum Source: String, Sendable, Hashable {
        case push, chain
    }

    public let transaction: Transaction
    /// The output the provider named, when it named one.
    public let outputIndex: Int?
    /// 0 while unconfirmed.
    public let confirmations: Int
    public let source: Source

    public init(transaction: Transaction, outputIndex: Int?, confirmations: Int, source: Source) {
        self.transaction = transaction
        self.outputIndex = outputIndex
        self.confirmations = max(0, confirmations)
        self.source = source
    }

    public var txid: TransactionID { transaction.txid }

    func with(confirmations: Int) -> ClientLockSighting {
        ClientLockSighting(transaction: transaction, outputIndex: outputIndex, confirmations: confirmations, source: source)
    }
}
