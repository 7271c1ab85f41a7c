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

    /// Our side of the swap, as far as the spend tells it.
    public enum Side: Sendable, Hashable {
        /// We were the client of a reverse (`reverse`) or submarine (`submarine`) swap.
        case client(ContractRoles)
        /// We were the provider of a reverse or submarine swap.
        case provider(ContractRoles)
        /// The contract's refund key is ours: we locked these coins, as a reverse swap's
        /// provider or a submarine swap's client. A refund leaf, or a P2WSH script, does not
        /// say which: the other party's key in it is a claim key either way, and the payment
        /// hash is not ours in either case.
        case locker
    }

    public let index: UInt32
    /// The derivation the swap's keys came from (the key table that matched).
    public let scheme: SwapKeyScheme
    public let side: Side
    public let kind: Kind
    public let contractType: ContractType
    /// The lock output that was spent.
    public let lock: OutPoint
    public let spendingTxid: TransactionID
    public let height: Int
    /// Empty when the spend does not show it (a Taproot refund).
    public let paymentHash: [UInt8]
    /// The preimage a claim revealed (already public on chain); nil for a refund.
    public let preimage: [UInt8]?

    /// Our role; nil for `.locker` (either).
    public var role: SwapRole? {
        switch side {
        case .client: return .client
        case .provider: return .provider
        case .locker: return nil
        }
    }

    /// The swap's direction; nil for `.locker` (either).
    public var roles: ContractRoles? {
        switch side {
        case .client(let roles), .provider(let roles): return roles
        case .locker: return nil
        }
    }

    /// What happened, from our side, in words.
    public var summary: String {
        switch (side, kind) {
        case (.client(.reverse), .claim): return "we claimed our lock as the client"
        case (.client(.reverse), .refund): return "the provider refunded the lock meant for us"
        case (.provider(.reverse), .claim): return "the client claimed our lock; the preimage settles our invoice"
        case (.provider(.reverse), .refund): return "we refunded our lock as the provider"
        case (.client(.submarine), .claim): return "the provider claimed our lock: it paid the invoice (the preimage is the proof)"
        case (.client(.submarine), .refund): return "we refunded our lock as the client"
        case (.provider(.submarine), .claim): return "we claimed the client's lock with the preimage our payment returned"
        case (.provider(.submarine), .refund):
            return "the client refunded its lock; if we paid its invoice, our claim came too late"
        case (.locker, .claim):
            return "our lock was claimed with the preimage: as a reverse provider it settles our invoice, as a submarine "
                + "client it proves the invoice was paid"
        case (.locker, .refund): return "we refunded our own lock (as a reverse provider or a submarine client)"
        }
    }
}
