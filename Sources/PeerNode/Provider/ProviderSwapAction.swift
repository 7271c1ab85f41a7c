import Offers

/// What the machine asks the engine to do. The engine runs them in order, after storing
/// the transition that produced them, and feeds each result back as a `ProviderSwapInput`.
/// Every action is safe to repeat: a restarted node may run it again.
public enum ProviderSwapAction: Sendable, Hashable {
    /// Tell the client (a `SwapStatusUpdate`; with the lock, and its raw transaction for
    /// `lock_broadcast`).
    case pushStatus(SwapStatus)
    /// Subscribe to the invoice's updates (no-op when already subscribed).
    case watchInvoice
    /// Look the invoice up now (answers `.invoice`).
    case lookupInvoice
    /// Build and sign the lock through the wallet (answers `.fundingPrepared` or `.fundingFailed`).
    case prepareFunding
    /// Publish the recorded lock unless the chain already has it (answers `.lockPublished`
    /// or `.lockPublishFailed`).
    case publishLock(ProviderLock)
    /// Watch the lock's output for spends and ask the chain where the lock is (answers
    /// `.lockSeen` or `.lockMissing`).
    case watchLock(ProviderLock)
    /// Relay the lock again if the chain has lost it (a block went by unconfirmed).
    case rebroadcastLock(ProviderLock)
    /// The lock is unconfirmed and the client may no longer claim it safely (or its HTLC
    /// is cancelled): spend the lock's inputs back to the wallet, unless the lock is in a
    /// block (answers `.lockSeen`), has descendants in the mempool (then a child pays for
    /// it instead), or the withdrawal is already deep (answers `.lockGone`).
    case withdrawLock(ProviderLock)
    /// Build and sign a refund; with `replacing`, at a higher rate than that one and to
    /// the same address (answers `.refundPrepared` or `.refundFailed`).
    case prepareRefund(replacing: ProviderRefund?)
    /// Broadcast the recorded refund (answers `.refundPublished` or `.refundPublishFailed`).
    case broadcastRefund(ProviderRefund)
    /// Ask the chain where the refund stands (answers `.refundStatus`).
    case checkRefund(ProviderRefund, atBlock: Bool)
    /// Settle the hold invoice with the preimage (answers `.invoiceSettled` when done).
    case settleInvoice(preimage: [UInt8])
    /// Cancel the hold invoice; the client's payment returns (answers `.invoiceCancelled` when done).
    case cancelInvoice
    /// Tell the operator something went wrong that no action can fix (the log's alarm line,
    /// and the swap's state in `swap show`).
    case raiseAlarm(String)
}

extension ProviderSwapAction: CustomStringConvertible {
    /// Names the action; a preimage is never printed.
    public var description: String {
        switch self {
        case .pushStatus(let status): return "push \(status.rawValue)"
        case .watchInvoice: return "watch invoice"
        case .lookupInvoice: return "look up invoice"
        case .prepareFunding: return "prepare lock"
        case .publishLock(let lock): return "publish lock \(lock.txid)"
        case .watchLock(let lock): return "watch lock \(lock.txid)"
        case .rebroadcastLock(let lock): return "rebroadcast lock \(lock.txid)"
        case .withdrawLock(let lock): return "withdraw lock \(lock.txid)"
        case .prepareRefund(let previous): return previous.map { "bump refund \($0.txid)" } ?? "prepare refund"
        case .broadcastRefund(let refund): return "broadcast refund \(refund.txid)"
        case .checkRefund(let refund, _): return "check refund \(refund.txid)"
        case .settleInvoice: return "settle invoice"
        case .cancelInvoice: return "cancel invoice"
        case .raiseAlarm(let what): return "alarm: \(what)"
        }
    }
}
