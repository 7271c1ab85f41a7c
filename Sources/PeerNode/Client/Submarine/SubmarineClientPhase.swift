/// Where a client's `onchain_to_ln` swap stands: the kind of its last stored event. Each
/// case says what that event persists and what a restarted node does with it (the
/// `recover` input of `SubmarineClientMachine`), so a crash anywhere resumes from the
/// record and the chain, and never funds a second lock.
///
/// | phase | persists | on resume |
/// |---|---|---|
/// | `quoted` | the terms (quote, request, invoice hash) | ends `abandoned`: nothing was locked |
/// | `accepted` | the contract rebuilt from the verified accept | ends `abandoned`: nothing was locked, nothing is funded without the user waiting |
/// | `lock_intent` | the signed funding transaction and its lock output | broadcasts the same bytes (never a new funding), reads the chain; past `SubmarineRules.lastLockBroadcastHeight` takes its inputs back instead |
/// | `lock_broadcast` | the node accepted the funding | broadcasts it again (idempotent), reads the chain |
/// | `lock_confirmed` | the lock has the quote's confirmations | reads the chain |
/// | `coop_signed` | the preimage from the provider's cooperative claim request and the co-signature given (`CoopCosigned`) | as `paid`; a replayed request is answered from the record |
/// | `paid` | the verified preimage (proof of payment), its source, the claim if seen | reads the chain; completes when the claim is deep, refunds from the timeout if the lock is still unspent |
/// | `coop_refund_requested` | a cooperative refund round (`CoopRound`: public nonce, sighash, unsigned key-path refund), before the request leaves | the nonce is gone: the round ends (back to `lock_confirmed`), the script-path refund waits for the timeout |
/// | `refund_broadcast` | every refund version signed, the latest in full | broadcasts the latest again, reads the chain, bumps it each new block until it confirms |
/// | `completed` | final: the invoice was paid and the provider's claim is deep | nothing |
/// | `refunded` | final: a refund is deep | nothing |
/// | `abandoned` | final: nothing was locked (or the funding's inputs went elsewhere, final) | nothing |
public enum SubmarineClientPhase: String, Sendable, Hashable, CaseIterable {
    /// Persists the swap's terms. Resume: `abandoned`, since no lock exists.
    case quoted
    /// Persists the contract `SubmarineAcceptPolicy` returned. Resume: `abandoned`; the
    /// funding was at most signed, never broadcast (that needs `lock_intent` first).
    case accepted
    /// Persists the signed funding transaction, before it is broadcast. Resume: broadcast
    /// those same bytes, so a crash between the record and the broadcast cannot fund twice.
    case lockIntent = "lock_intent"
    /// Persists that the node accepted the funding. Resume: broadcast it again (a reorg or
    /// an evicting mempool may have dropped it) and read its confirmations and spends.
    case lockBroadcast = "lock_broadcast"
    /// Persists the lock's confirmation count, at least the quote's. Resume: read the
    /// chain; the provider pays now, or the refund runs from the timeout.
    case lockConfirmed = "lock_confirmed"
    /// Persists the preimage the provider's cooperative claim request carried and the
    /// co-signature this client gave (issue 17), before the answer leaves. Resume: as
    /// `paid`; the key-path spend of the lock with the co-signed txid is the claim.
    case coopSigned = "coop_signed"
    /// Persists the preimage (SHA-256 equal to the payment hash): the proof of payment,
    /// learned from the provider's claim, the payee's settled invoice or a status message.
    /// Resume: read the chain; `completed` once the claim is deep; if the timeout comes
    /// with the lock unspent (the claim never mined, or reorged out), the refund runs.
    case paid
    /// Persists a cooperative refund round (the provider said it cannot pay), before the
    /// request leaves; the secret nonce is in memory only. Resume: the round is over, never
    /// resumed (back to `lock_confirmed` or `lock_broadcast`); the refund from the timeout.
    case coopRefundRequested = "coop_refund_requested"
    /// Persists every refund version's txid and the latest signed refund. Resume:
    /// broadcast the latest again and read the chain; each new block bumps it (RBF).
    case refundBroadcast = "refund_broadcast"
    /// Final: the provider's claim has the finality depth.
    case completed
    /// Final: a refund version has the finality depth.
    case refunded
    /// Final: ended before anything was locked, or the funding's inputs were spent by a
    /// final conflicting transaction (no lock can exist).
    case abandoned

    public var isFinal: Bool {
        switch self {
        case .completed, .refunded, .abandoned: return true
        default: return false
        }
    }

    /// Whether a lock may exist: from the funding's record on, the swap only ends through
    /// the chain (a claim or a refund), never by giving up.
    public var lockMayExist: Bool {
        switch self {
        case .quoted, .accepted, .abandoned: return false
        default: return true
        }
    }
}
