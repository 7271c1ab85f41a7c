import Bitcoin
import HTLC
import Offers

/// Everything that can happen to a client submarine swap. The engine turns replies, wallet
/// results and chain events into these; the machine checks what it can itself (the accept,
/// the funding, a spend's witness, a preimage) and decides.
public enum SubmarineClientInput: Sendable, Equatable {
    /// The provider's signed accept, with the tip it is checked at.
    case acceptReceived(Signed<SubmarineSwapAccept>, tipHeight: Int)
    /// The provider refused the SwapRequest (or it could not be sent): nothing is locked.
    case refused(String)
    /// The wallet signed the funding transaction (RBF, exact fee); not yet broadcast.
    case lockFunded(Transaction)
    /// The wallet could not fund the lock (too little confirmed money, no fee estimate).
    case fundingFailed(String)
    /// The client's own node accepted the funding broadcast (or already had it).
    case lockBroadcastAccepted
    /// The lock's confirmation count (0 when unconfirmed or reorged out of its block).
    case lockConfirmations(Int)
    /// Another transaction spends an input of the funding and has this many confirmations:
    /// once that is final, the lock can never exist.
    case fundingConflicted(confirmations: Int)
    /// A transaction spending the lock (mempool: 0 confirmations, or chain).
    case lockSpent(Transaction, confirmations: Int)
    /// Neither the chain nor the mempool holds a spend of the lock any more (a reorg, an
    /// eviction): a claim or refund seen before is gone.
    case lockUnspent
    /// A preimage heard off chain: the payee's settled invoice or the provider's status.
    /// Checked against the payment hash; any other value is ignored.
    case preimageLearned([UInt8], source: SubmarineClientState.PreimageSource)
    /// A refund version signed by the engine (the first, or a bump).
    case refundSigned(Transaction)
    /// Refund version `txid` (any one signed for this swap) has this many confirmations.
    case refundConfirmations(TransactionID, Int)
    /// A block joined the chain.
    case block(height: Int)
    /// The node restarted: resume from the stored state. `tipHeight`: the chain's tip now,
    /// when it could be read (the stored tip may be many blocks old: a funding the node
    /// never took is sent only while the provider still waits for it).
    case recover(tipHeight: Int?)
    /// The engine co-signed the provider's cooperative claim (checked: the preimage is the
    /// payment hash's, the claim spends exactly the lock); recorded before the answer leaves.
    case coopClaimAgreed(preimage: [UInt8], CoopCosigned)
    /// The provider says it cannot pay and offers a cooperative refund (`CoopRefundOffer`).
    case coopRefundOffered
    /// A refund round is ready to record (the unsigned key-path refund to our own wallet
    /// and our public nonce; the secret nonce is in the engine's memory only).
    case coopRefundPrepared(CoopRound)
    /// The round's answer: the signed key-path refund (valid at once).
    case coopRefundSigned(Transaction)
    /// The round ended without one (refused, silent, a bad partial signature).
    case coopRefundFailed(String)
}
