import Bitcoin
import Lightning

/// Something the provider engine learned about a swap: from the Lightning node, the chain,
/// the client, a restart, or the result of an action it ran.
public enum ProviderSwapInput: Sendable, Hashable {
    /// The node restarted (or the engine started): re-read the world for this swap.
    case recover
    /// The hold invoice as the Lightning node reports it, with the chain tip at that moment.
    case invoice(ProviderInvoiceObservation)
    /// A block joined the chain at `height`.
    case block(height: UInt32)
    /// The wallet built and signed the lock (not yet broadcast).
    case fundingPrepared(ProviderLock)
    /// The wallet could not build the lock. `retryable`: the backend was unreachable;
    /// otherwise (not enough funds) it will not work later either.
    case fundingFailed(retryable: Bool)
    /// The recorded lock is in the mempool or a block now.
    case lockPublished
    /// Publishing failed. `permanent`: the chain refused it for good (its inputs are spent
    /// elsewhere) and it is not on chain, so it can never confirm.
    case lockPublishFailed(permanent: Bool)
    /// The lock transaction was seen with this many confirmations (0: mempool).
    case lockSeen(confirmations: Int)
    /// The chain does not know the recorded lock (not in the mempool, not in a block).
    case lockMissing
    /// The recorded lock can never confirm: one of its inputs is spent by another
    /// transaction `ProviderSwapMachine.refundCancelDepth` blocks deep (audit M-7).
    case lockGone
    /// The lock's output was spent by a claim (any spend that is not our refund) revealing
    /// this preimage (already checked against the payment hash by `PreimageExtractor`),
    /// with this many confirmations (0: mempool), by transaction `txid`.
    case claimSeen(preimage: [UInt8], confirmations: Int, txid: TransactionID)
    /// The lock's output was spent by a transaction that is not our refund and reveals no
    /// preimage of the payment hash (audit C-2).
    case unreadableSpend(txid: TransactionID, confirmations: Int)
    /// The client pushed a preimage (`PreimagePush`); the machine checks it. `tipHeight` is
    /// the chain's tip when it arrived (nil: unknown): an unconfirmed lock past the first
    /// claim cutoff is being taken back, and a push then settles nothing.
    case preimagePushed(preimage: [UInt8], tipHeight: UInt32?)
    /// The client asked for a cooperative claim: its claim passed `CoopSpendCheck` with
    /// this preimage, and `claim` is the co-signature the engine computed (not sent yet).
    /// The machine records both only when it would settle on a push (a lock, no refund of
    /// ours out, the HTLC held, the lock not being taken back) and then settles.
    case coopClaimAgreed(preimage: [UInt8], claim: CoopCosigned, tipHeight: UInt32?)
    /// A refund was built and signed (not yet broadcast).
    case refundPrepared(ProviderRefund)
    /// Building the refund failed (backend unreachable, or the fee would eat the lock).
    case refundFailed
    /// The refund reached the mempool.
    case refundPublished
    /// Broadcasting the refund failed; retried at the next block.
    case refundPublishFailed
    /// Where the refund stands. `atBlock`: checked because a block arrived (the moment to
    /// fee-bump an unconfirmed refund), not on a restart. `seen`: the refund transaction the
    /// chain holds, when the chain watch saw it (it may be an earlier version than the one
    /// recorded: a bump can lose the race with the block that confirms its predecessor).
    case refundStatus(ProviderRefundStatus, atBlock: Bool, seen: ProviderRefund? = nil)
    /// The invoice is settled (our settle call, or the node reports it).
    case invoiceSettled
    /// The invoice is cancelled (our cancel call, or the node expired it).
    case invoiceCancelled
}

/// A hold invoice as seen at one moment.
public struct ProviderInvoiceObservation: Sendable, Hashable {
    public let state: InvoiceStatus.State
    /// The earliest expiry among the held HTLCs (once ACCEPTED).
    public let heldExpiry: UInt32?
    /// The chain tip when it was seen: the lock checks compare against it.
    public let tipHeight: UInt32

    public init(state: InvoiceStatus.State, heldExpiry: UInt32?, tipHeight: UInt32) {
        self.state = state
        self.heldExpiry = heldExpiry
        self.tipHeight = tipHeight
    }

    public init(_ status: InvoiceStatus, tipHeight: UInt32) {
        self.init(state: status.state, heldExpiry: status.earliestHeldExpiry.map { UInt32(clamping: $0) },
                  tipHeight: tipHeight)
    }
}

/// A refund transaction (any version of it) as the chain shows it.
public enum ProviderRefundStatus: Sendable, Hashable {
    case confirmed(Int)
    case unconfirmed
    /// Neither in the mempool nor in a block (dropped, or never relayed).
    case missing
}
