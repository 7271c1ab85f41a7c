import Bitcoin
import HTLC

/// One signed version of the provider's claim of the client's lock (the first, or a fee
/// bump), recorded before it is broadcast so a restarted node sends these exact bytes.
public struct SubmarineClaim: Sendable, Hashable {
    public let transaction: Transaction
    public let feeRate: FeeRate
    public let fee: Int64
    /// The tip when it was built: the cutoff for a first claim is checked against it.
    public let builtAtHeight: UInt32
    /// The tip at which the node first accepted this version: the count of blocks it has
    /// stayed unconfirmed (`ClaimPolicy.bumpDue`). Nil until then (a bump is then due).
    public let acceptedAtHeight: UInt32?

    public init(transaction: Transaction, feeRate: FeeRate, fee: Int64, builtAtHeight: UInt32,
                acceptedAtHeight: UInt32? = nil) {
        self.transaction = transaction
        self.feeRate = feeRate
        self.fee = fee
        self.builtAtHeight = builtAtHeight
        self.acceptedAtHeight = acceptedAtHeight
    }

    public var txid: TransactionID { transaction.txid }

    /// The same version, accepted by the node at `height`.
    public func accepted(at height: UInt32) -> SubmarineClaim {
        SubmarineClaim(transaction: transaction, feeRate: feeRate, fee: fee, builtAtHeight: builtAtHeight,
                       acceptedAtHeight: height)
    }
}
