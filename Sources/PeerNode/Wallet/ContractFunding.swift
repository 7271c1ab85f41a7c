import Bitcoin
import HTLC

/// A broadcast lock transaction: the provider records the lock output and watches it.
public struct ContractFunding: Hashable, Sendable {
    public let transaction: Transaction
    /// The index of the output paying the contract.
    public let outputIndex: Int
    /// What the lock transaction pays in fees.
    public let fee: Int64

    public init(transaction: Transaction, outputIndex: Int, fee: Int64) {
        self.transaction = transaction
        self.outputIndex = outputIndex
        self.fee = fee
    }

    public var txid: TransactionID { transaction.txid }

    /// The lock as a claim or refund spends it.
    public var lock: LockOutput {
        LockOutput(outPoint: OutPoint(txid: transaction.txid, index: UInt32(outputIndex)),
                   value: transaction.outputs[outputIndex].value)
    }
}

/// What `Wallet.prepareFundingOrWait` found: a lock ready to record and broadcast, or coins
/// held by a prepared transaction that is about to go out (with the shortfall now, for the
/// refusal if the wait is given up).
public enum FundingAttempt: Equatable, Sendable {
    case prepared(ContractFunding)
    case waitForBroadcast(needed: Int64, available: Int64)
}
