import Bitcoin
import HTLC
import Lightning

/// Everything that can happen to a client swap. The engine turns I/O results (replies,
/// payment updates, chain events, timers) into these; the machine decides.
public enum ClientSwapInput: Sendable, Hashable {
    /// The SwapAccept passed every check of `AcceptPolicy` and is stored with this event;
    /// its contract times out at `timeoutHeight` (from then on the provider may refund).
    case acceptVerified(timeoutHeight: Int)
    /// The provider refused, the accept failed a check, or the budget does not cover the
    /// invoice: the swap ends before anything was paid.
    case refused(String)
    /// The engine is about to pay the invoice (Unix seconds now).
    case paymentStarting(atUnix: UInt64)
    /// A status of the outgoing Lightning payment.
    case payment(PaymentUpdate.Status)
    /// A lock transaction (push or chain), or a later confirmation count of it.
    case lockSeen(ClientLockSighting)
    /// `LockVerifier` accepted the lock.
    case lockVerified(LockOutput)
    /// The lock pays the wrong script or too little: never claim, never reveal.
    case lockRejected(String)
    /// A block joined the chain.
    case block(height: Int)
    /// The engine built a cooperative round for the verified lock (the reveal rule holds,
    /// the secret nonce is in its memory): record it, then send the request.
    case coopPrepared(CoopRound)
    /// No cooperative round now (the reveal rule, or the claim cannot be built as a key
    /// path): claim through the script path as without cooperation.
    case coopUnavailable(String)
    /// The recorded round ended without a key-path claim: refused, no answer in time, a
    /// partial signature that does not verify, or the nonce lost. The preimage may be the
    /// provider's now: the script-path claim goes out at any height.
    case coopFailed(String)
    /// A signed claim (first, or a fee bump) ready to be recorded and broadcast.
    case claimSigned(Transaction)
    /// The client's own node accepted the claim broadcast (or already had it), at tip
    /// `tipHeight` (nil when the tip could not be read).
    case claimAccepted(tipHeight: Int?)
    /// A resumed claim the node never accepted cannot be revealed any more: at tip
    /// `tipHeight` the claim rule (more than 6 blocks before the timeout) no longer holds.
    case claimTooLate(tipHeight: Int)
    /// No claim can be built any more (too close to the timeout, fees above the cap).
    case claimImpossible(String)
    /// The claim's confirmation count (0 when a reorg took it out of its block).
    case claimConfirmations(Int)
    /// Claim version `txid` (any one signed for this swap, not only the latest) has this
    /// many confirmations: an earlier version may be the one that got mined.
    case claimVersionConfirmations(TransactionID, Int)
    /// The verified lock is spent by transaction `txid`, none of this swap's claim versions
    /// (the provider's refund after the timeout), with this many confirmations.
    case lockSpentElsewhere(TransactionID, confirmations: Int)
    /// The give-up timer fired (10 minutes after paying by default).
    case giveUp
    /// The node restarted: resume from the stored state.
    case recover
}
