import Bitcoin

/// Where a provider's `onchain_to_ln` swap stands. Each state says what it persists and
/// what a restarted node does with it (`SubmarineProviderMachine` answers `.recover` in
/// every state). The provider pays first and claims after, so the rules are: never pay
/// before the lock is verified and confirmed, never pay twice, claim whatever happens once
/// the preimage is known.
///
/// Pending: `accepted` ... `claim_broadcast` (`coop_requested` between `paid` and it when the
/// claim is asked for cooperatively), and `payment_failed` (`coop_refund_signed` once the
/// client's key-path refund is co-signed) until the client's coins are its own again. Success: `claimed`. Nothing paid: `abandoned`, `lock_mismatch`,
/// `released`. Paid and not recovered: `claim_lost` (an alarm).
public enum SubmarineProviderState: Sendable, Hashable {
    /// The accept is signed and sent, the invoice checked; no lock seen yet.
    /// Persists: nothing beyond the swap's context. Resume: watch the contract's address.
    case accepted
    /// A lock paying the contract exactly is seen with fewer confirmations than the offer's
    /// (0: in the mempool, replaceable). Persists: the lock. Resume: watch the address.
    case lockSeen(SubmarineLock)
    /// The lock has the offer's confirmations (at least 1); the Lightning side is checked
    /// next (tip, clock). Persists: the lock. Resume: watch the address, prepare the payment.
    case lockConfirmed(SubmarineLock)
    /// Recorded BEFORE the payment is sent, with the CLTV limit computed from the tip at
    /// that moment. Persists: the lock, the limit. Resume: track the payment, never send it
    /// again (the send may or may not have reached the node).
    case paymentIntent(SubmarineLock, cltvLimit: UInt32)
    /// The node took the payment; HTLCs may be out. Persists: the lock, the limit.
    /// Resume: track the payment.
    case paymentInFlight(SubmarineLock, cltvLimit: UInt32)
    /// The payment succeeded: the preimage (checked against the hash) is known, no claim
    /// built yet. Persists: the lock, the preimage. Resume: watch the lock, build the claim.
    case paid(SubmarineLock, preimage: [UInt8])
    /// A cooperative claim round is recorded before the request leaves (issue 17): the
    /// provider's public nonce, the sighash and the unsigned key-path claim (`CoopRound`);
    /// its secret nonce is in memory only. Persists: the lock, the preimage, the round.
    /// Resume: the nonce is gone, so the round is over: the script-path claim, never a
    /// second round.
    case coopRequested(SubmarineLock, preimage: [UInt8], CoopRound)
    /// A claim version is recorded (before its broadcast) and possibly out. Persists: the
    /// lock, the preimage, the claim. Resume: watch the lock, broadcast the recorded claim
    /// (same bytes); then bumped by `ClaimPolicy` until it is deep.
    case claimBroadcast(SubmarineLock, preimage: [UInt8], SubmarineClaim)
    /// The claim is `SubmarineProviderMachine.claimFinalDepth` deep. Final. `minedClaimTxid`
    /// names the version in the chain when it is not the last one signed (it confirmed
    /// before its bump): its output is what the wallet got, its fee what the books count.
    /// Nil when the last version is the one mined.
    case claimed(minedClaimTxid: TransactionID?)
    /// Stopped before paying (why: `SubmarineGiveUp`). Nothing paid. Final.
    case abandoned(SubmarineGiveUp)
    /// The client's lock (`txid`) does not pay the agreed contract exactly. Never paid. Final.
    case lockMismatch(txid: TransactionID, SubmarineLockMismatch)
    /// The payment failed (or was never sent after a crash): nothing to claim. Persists: the
    /// lock, the reason. Resume: watch the lock (a late SUCCEEDED would still be claimed);
    /// ends `released` once the client's refund is valid or seen.
    case paymentFailed(SubmarineLock, reason: String)
    /// After a payment tracked to a final failure, the provider co-signed the client's
    /// key-path refund (`CoopCosigned`: the client's nonce, its own, the sighash, the partial
    /// signature, the refund's txid), recorded before the answer left: it will never pay
    /// this invoice. Persists: the lock, the failure, the co-signature. Resume: watch the
    /// lock; a replayed request is answered from the record; ends `released` as
    /// `payment_failed` does.
    case coopRefundSigned(SubmarineLock, reason: String, CoopCosigned)
    /// After a failed payment, the client's lock is its own again. Nothing paid. Final.
    case released
    /// The client's refund (`spendingTxid`) took the lock after the provider paid: the
    /// claim lost the race. An alarm says so. Final.
    case claimLost(SubmarineLock, spendingTxid: TransactionID)

    /// The state names, as a store would keep them.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case accepted = "accepted"
        case lockSeen = "lock_seen"
        case lockConfirmed = "lock_confirmed"
        case paymentIntent = "payment_intent"
        case paymentInFlight = "payment_in_flight"
        case paid = "paid"
        case coopRequested = "coop_requested"
        case claimBroadcast = "claim_broadcast"
        case claimed = "claimed"
        case abandoned = "abandoned"
        case lockMismatch = "lock_mismatch"
        case paymentFailed = "payment_failed"
        case coopRefundSigned = "coop_refund_signed"
        case released = "released"
        case claimLost = "claim_lost"

        public var isFinal: Bool {
            switch self {
            case .claimed, .abandoned, .lockMismatch, .released, .claimLost: return true
            case .accepted, .lockSeen, .lockConfirmed, .paymentIntent, .paymentInFlight, .paid, .coopRequested,
                 .claimBroadcast, .paymentFailed, .coopRefundSigned: return false
            }
        }
    }

    public var kind: Kind {
        switch self {
        case .accepted: return .accepted
        case .lockSeen: return .lockSeen
        case .lockConfirmed: return .lockConfirmed
        case .paymentIntent: return .paymentIntent
        case .paymentInFlight: return .paymentInFlight
        case .paid: return .paid
        case .coopRequested: return .coopRequested
        case .claimBroadcast: return .claimBroadcast
        case .claimed: return .claimed
        case .abandoned: return .abandoned
        case .lockMismatch: return .lockMismatch
        case .paymentFailed: return .paymentFailed
        case .coopRefundSigned: return .coopRefundSigned
        case .released: return .released
        case .claimLost: return .claimLost
        }
    }

    public var isFinal: Bool { kind.isFinal }

    /// A `payment_failed` (or the `coop_refund_signed` after it) that the machine entered
    /// giving up before any payment (its reason starts `SubmarineProviderMachine.neverPaidPrefix`).
    /// Read for the risk limits only: whether a co-signature may be given is decided on the
    /// swap's stored history (`SubmarineProviderEngine.neverPaid`), not on a reason's text.
    public var gaveUpBeforePaying: Bool {
        switch self {
        case .paymentFailed(_, let reason), .coopRefundSigned(_, let reason, _):
            return reason.hasPrefix(SubmarineProviderMachine.neverPaidPrefix)
        default:
            return false
        }
    }

    /// The lock, in every state that has one.
    public var lock: SubmarineLock? {
        switch self {
        case .lockSeen(let lock), .lockConfirmed(let lock), .paymentIntent(let lock, _), .paymentInFlight(let lock, _),
             .paid(let lock, _), .coopRequested(let lock, _, _), .claimBroadcast(let lock, _, _), .paymentFailed(let lock, _),
             .coopRefundSigned(let lock, _, _), .claimLost(let lock, _):
            return lock
        case .accepted, .claimed, .abandoned, .lockMismatch, .released:
            return nil
        }
    }
}

extension SubmarineProviderState: CustomStringConvertible {
    /// The state's name and its lock's txid; never the preimage.
    public var description: String {
        if let lock { return "\(kind.rawValue) (lock \(lock.txid))" }
        return kind.rawValue
    }
}
