import Bitcoin
import HTLC

/// What the engine must do after a transition, in order. `persist` comes first whenever
/// the phase or the facts changed, so every act is preceded on disk by its record; if the
/// write fails, the engine performs none of the actions that follow.
public enum ClientSwapAction: Sendable, Hashable {
    /// Append an event of `state.phase` with the state's facts (durable before the next action).
    case persist(ClientSwapState)
    /// Pay the invoice with the routing-fee limit. `resuming`: the node may already have
    /// this payment; its refusal of a duplicate is not a failure.
    case pay(resuming: Bool)
    /// Fire `giveUp` at this Unix second (it ends the swap only while no lock has been seen).
    case armGiveUpTimer(deadlineUnix: UInt64)
    /// Ask the provider where the lock is and watch the chain for it.
    case lookForLock
    /// Check the lock against the contract (`LockVerifier`).
    case verifyLock(ClientLockSighting)
    /// Sign the first claim of `lock` to the destination (or report why it is impossible).
    case buildClaim(LockOutput)
    /// The first claim, cooperatively if the engine may (the reveal rule, `CoopRevealRule`):
    /// build the unsigned key-path claim and a fresh nonce, and answer `coopPrepared`; or
    /// `coopUnavailable`, or nothing when the node does not hold the lock deep enough yet.
    case prepareCooperativeClaim(LockOutput)
    /// Send the recorded round's `CoopClaimRequest` and finish the key-path claim with the
    /// answer (`claimSigned`), or answer `coopFailed`; at most a few seconds.
    case requestCooperativeClaim(CoopRound)
    /// The script-path claim after a cooperative round: the provider may hold the preimage,
    /// so it is built whatever the height (no first-claim cutoff) and answers `claimSigned`.
    case buildFallbackClaim(LockOutput)
    /// Send the stored signed claim to the chain (idempotent: a known transaction is fine).
    case broadcastClaim(Transaction)
    /// A claim the node has not accepted yet (it may hold it anyway: a crash right after
    /// the broadcast): rebroadcast it when the node holds it (it is public then); else
    /// broadcast it only while the tip is below `revealBefore` (timeout − 6, the claim
    /// rule), and otherwise answer `claimTooLate`.
    case resumeClaim(Transaction, revealBefore: Int)
    /// A new block while the claim is unconfirmed: rebroadcast it, and bump its fee near
    /// the timeout (or for a swap-out) as `ClaimPolicy` allows.
    case maintainClaim(tipHeight: Int)
    /// Send `PreimagePush` to the provider so it can settle without watching the chain.
    case pushPreimage
    /// Read the lock's or the claim's confirmations from the chain.
    case checkChain
    /// The swap reached a final phase: stop its timers and watches.
    case finish

    /// Whether the steps recorded so far must be written before the action: it reaches
    /// outside this process (a payment, a message to the provider, a broadcast), ends the
    /// swap's run in the engine, or starts a cooperative round (from `coop_requested` on no
    /// cutoff holds a claim back, so the lock's steps are on disk before a round exists and
    /// a crash never lands past a round that was not started). The others (a timer, a check
    /// of the lock, a claim built in memory, a read of the chain) may run while the latest
    /// steps are still unwritten; those are then written together, once the swap has no
    /// input waiting or before its next such action. A crash before that write leaves the
    /// swap at an earlier step with nothing done since, as a crash a moment earlier would.
    public var needsStepsWritten: Bool {
        switch self {
        case .persist, .armGiveUpTimer, .verifyLock, .buildClaim, .buildFallbackClaim, .checkChain:
            return false
        case .pay, .lookForLock, .prepareCooperativeClaim, .requestCooperativeClaim, .broadcastClaim, .resumeClaim,
             .maintainClaim, .pushPreimage, .finish:
            return true
        }
    }
}
