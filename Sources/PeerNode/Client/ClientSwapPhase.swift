/// Where a client swap stands: the `kind` of its last event in the store. Each phase says
/// what a restarted node does with it (the `recover` input of `ClientSwapMachine`), so a
/// crash at any point resumes from the record and the chain.
///
/// | phase | meaning | on resume |
/// |---|---|---|
/// | `quoted` | quote checked, contract and swap index stored | ends `failed`: nothing was paid, the user's command is gone |
/// | `accepted` | SwapAccept verified and stored | ends `failed`: still nothing paid; a payment is never started without the user waiting |
/// | `pay_started` | intent: the invoice is about to be paid | pays again (the node refuses a duplicate, so at most one payment), re-arms the give-up timer from the stored pay time, looks for the lock (provider status, chain) |
/// | `payment_in_flight` | the payment's HTLC is out, held by the provider | as `pay_started` |
/// | `lock_seen` | a lock transaction was seen (push or chain), not yet checked | checks it again, re-arms the give-up timer |
/// | `lock_verified` | the lock pays the contract the agreed amount | reads its confirmations from the chain; claims once the policy allows and the node holds the lock; no wall-clock deadline: ends `failed` unrevealed when timeout − tip ≤ 6 first |
/// | `coop_requested` | the cooperative round's public nonce, sighash and unsigned key-path claim are stored (never the secret nonce); the `CoopClaimRequest`, and with it the preimage, may have reached the provider | the nonce is gone with the process: the round is over, never resumed; the script-path claim goes out at any height (the preimage may be the provider's) |
/// | `claim_broadcast` | intent: the signed claim (stored) is being broadcast; `claim_accepted` once the client's node took it | an accepted claim: rebroadcast at any height; one never accepted: broadcast only while timeout − tip > 6, else ends `failed` unrevealed; the preimage is pushed only on acceptance within that rule (or once the claim confirms); follows its confirmations |
/// | `claim_confirmed` | the claim is in a block | pushes the preimage again, waits for the completion depth |
/// | `completed` | final: the destination holds X | nothing |
/// | `failed` | final: what went wrong and what happened to the funds (also: the lock spent by a transaction that is none of the claims, 6 deep, once a claim was out) | nothing |
/// | `abandoned` | final: no lock came in time (give-up timer, or the claim rule closed); the payment returns when the invoice is cancelled | nothing |
public enum ClientSwapPhase: String, Sendable, Hashable, CaseIterable {
    case quoted
    case accepted
    case payStarted = "pay_started"
    case paymentInFlight = "payment_in_flight"
    case lockSeen = "lock_seen"
    case lockVerified = "lock_verified"
    case coopRequested = "coop_requested"
    case claimBroadcast = "claim_broadcast"
    case claimConfirmed = "claim_confirmed"
    case completed
    case failed
    case abandoned

    public var isFinal: Bool {
        switch self {
        case .completed, .failed, .abandoned: return true
        default: return false
        }
    }

    /// Whether the preimage may already be public (a claim was signed to be broadcast).
    /// Before this, giving up is always safe: nothing revealed, the payment returns.
    public var claimIsOut: Bool {
        switch self {
        case .claimBroadcast, .claimConfirmed, .completed: return true
        default: return false
        }
    }

    /// Whether the provider may know the preimage: a claim was signed, or a cooperative
    /// round sent it (`coop_requested`). From here the swap never ends unclaimed for the
    /// claim rule: the way to the money is a claim, at any height.
    public var preimageMayBeRevealed: Bool {
        claimIsOut || self == .coopRequested
    }

    /// Whether the Lightning payment may have left the node.
    public var mayHavePaid: Bool {
        switch self {
        case .quoted, .accepted: return false
        default: return true
        }
    }
}
