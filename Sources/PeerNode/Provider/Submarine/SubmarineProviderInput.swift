import Bitcoin
import Lightning

/// Something the provider engine learned about a submarine swap: from the chain, the
/// Lightning node, a restart, or the result of an action it ran. Inputs that a decision
/// depends on carry the tip (and the clock, for the invoice's expiry) of their moment.
public enum SubmarineProviderInput: Sendable, Hashable {
    /// The node restarted (or the engine started): re-read the world for this swap.
    case recover
    /// A block joined the chain at `height`; `nowUnix` is the clock then.
    case block(height: UInt32, nowUnix: UInt64)
    /// A transaction paying the contract's address (or named by the client as its lock),
    /// with this many confirmations (0: mempool). The machine checks it.
    case lockSeen(Transaction, confirmations: Int)
    /// The chain no longer holds the recorded lock (evicted, replaced, or reorged out).
    case lockMissing
    /// The lock's output was spent by the client's refund `txid`, `confirmations` deep.
    case lockRefunded(txid: TransactionID, confirmations: Int)
    /// The engine checked the Lightning side (the node reads the invoice alike, the
    /// channels can carry it) at tip `tipHeight` and time `nowUnix`: the machine decides now.
    case paymentReady(tipHeight: UInt32, nowUnix: UInt64)
    /// The Lightning side is not ready (node unreachable, no outbound liquidity yet): tried
    /// again at the next block.
    case paymentNotReady
    /// The node accepted the payment (its stream started).
    case paymentStarted
    /// A status of the payment (from the pay stream or `trackPayment`), with the tip then.
    case payment(PaymentUpdate.Status, tipHeight: UInt32)
    /// `trackPayment` says the node never sent this payment.
    case paymentNotFound
    /// A claim version was built and signed (not yet broadcast).
    case claimPrepared(SubmarineClaim)
    /// Building the claim failed (backend unreachable, fee above the cap): retried at a block.
    case claimFailed
    /// The node accepted the recorded claim at tip `tipHeight`.
    case claimPublished(tipHeight: UInt32)
    /// Broadcasting the claim failed; retried at the next block.
    case claimPublishFailed
    /// Where the claim stands at tip `tipHeight`.
    case claimStatus(SubmarineClaimStatus, tipHeight: UInt32)
    /// A cooperative claim round is ready to record (the unsigned key-path claim and the
    /// provider's public nonce; its secret nonce is in the engine's memory only).
    case coopClaimPrepared(CoopRound)
    /// No round could be prepared (no key path, the amounts): the script-path claim.
    case coopUnavailable(String)
    /// The round ended without a co-signature (refused, silent, a bad partial signature,
    /// the client not connected): the script-path claim.
    case coopFailed(String)
    /// The engine co-signed the client's key-path refund (checked: it spends only the lock,
    /// the payment tracked to a final failure); recorded before the answer leaves.
    case coopRefundAgreed(CoopCosigned)
}
