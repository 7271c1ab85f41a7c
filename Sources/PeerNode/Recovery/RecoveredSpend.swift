import Bitcoin
import HTLC

/// A spend of one of our swap contracts found on chain by `RecoveryScanner`: which swap
/// index it belongs to, which side we were on, and how the lock was spent.
public struct RecoveredSpend: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        /// Spent on the claim path: the preimage is in the witness.
        case claim
        /// Spent on the refund path after the timeout.
        case refund
    }

    public let index: UInt32
    /// The derivation the swap's keys came from (the key table that matched).
    public let scheme: SwapKeyScheme
    public let role: SwapRole
    public let kind: Kind
    public let contractType: ContractType
    /// The lock output that was spent.
    public let lock: OutPoint
    public let spendingTxid: TransactionID
    public let height: Int
    public let paymentHash: [UInt8]
    /// The preimage a claim revealed (already public on chain); nil for a refund.
    public let preimage: [UInt8]?

    /// What happened, from our side, in words.
    public var summary: String {
        switch (role, kind) {
        case (.client, .claim): return "we claimed our lock as the client"
        case (.client, .refund): return "the provider refunded the lock meant for us"
        case (.provider, .claim): return "the client claimed our lock; the preimage settles our invoice"
        case (.provider, .refund): return "we refunded our lock as the provider"
        }
    }
}
