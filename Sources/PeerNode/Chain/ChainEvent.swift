import Bitcoin

/// What the follower tells a watcher. Events are idempotent facts: a rescan or a reorg can
/// report the same transaction in the same block again, so consumers key on
/// (txid, block) rather than counting events.
public enum ChainEvent: Hashable, Sendable {
    /// A block joined the followed chain (in height order).
    case blockConnected(ChainTip)
    /// A block left it in a reorg (tip first), before the new branch's blocks connect.
    case blockDisconnected(ChainTip)
    /// A transaction touching the watch: first seen in the mempool (0 confirmations), in a
    /// block, with a new confirmation count (up to the watch's depth), or back to 0
    /// confirmations because its block was disconnected.
    case transaction(WatchedTransaction)
    /// An unconfirmed watched transaction left the mempool without confirming (replaced,
    /// evicted or expired).
    case transactionLeftMempool(TransactionID)
}
