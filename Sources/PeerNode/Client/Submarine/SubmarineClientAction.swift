import Bitcoin
import HTLC

/// What the engine must do after a transition, in order. `persist` comes first whenever
/// the phase or the facts changed, so every act is preceded on disk by its record; if the
/// write fails, the engine performs none of the actions that follow.
public enum SubmarineClientAction: Sendable, Hashable {
    /// Append an event of `state.phase` with the state's facts (durable before the next action).
    case persist(SubmarineClientState)
    /// Sign (not broadcast) a wallet transaction paying exactly `amountSat` to `contract`,
    /// RBF-signalling, at the estimated fee; answer `lockFunded` or `fundingFailed`.
    case fundLock(SwapContract, amountSat: Int64)
    /// Send the recorded funding to the chain (idempotent: a known transaction is fine).
    case broadcastLock(Transaction)
    /// Spend the recorded funding's inputs back to the wallet (a BIP125 replacement when it
    /// is in the mempool; nothing when it is in a block, or has descendants there), so that
    /// no lock can ever exist: the funding was never taken by the node, and the provider no
    /// longer waits for a lock (`SubmarineRules.lastLockBroadcastHeight`).
    case takeBackFunding(Transaction)
    /// Read the lock's confirmations and any spend of it (mempool and chain).
    case checkChain
    /// Sign the first refund of `lock` to the wallet at the estimated fee (nLockTime =
    /// timeout); answer `refundSigned`.
    case buildRefund(LockOutput)
    /// Sign a replacement of `previous` paying a higher fee (RBF), for tip `tipHeight`.
    case bumpRefund(previous: Transaction, tipHeight: Int)
    /// Send a refund version to the chain (idempotent).
    case broadcastRefund(Transaction)
    /// Build a cooperative refund round for `lock`: the key-path refund to the recorded
    /// refund address of our own wallet and a fresh secret nonce (answers
    /// `coopRefundPrepared`, or nothing).
    case prepareCooperativeRefund(LockOutput)
    /// Send the recorded round's `CoopRefundRequest` and finish the key-path refund from
    /// the provider's answer (answers `coopRefundSigned` or `coopRefundFailed`).
    case requestCooperativeRefund(CoopRound)
    /// Tell the user the invoice is paid, with the preimage as its proof.
    case reportPaid(preimage: [UInt8])
    /// The swap reached a final phase: stop its watches.
    case finish
}
