/// Where a swap stands, as the provider sees it (the `status` of status messages).
public enum SwapStatus: String, Sendable, Hashable, CaseIterable {
    /// Accepted; the hold invoice is not paid yet.
    case invoicePending = "invoice_pending"
    /// The Lightning payment is held by the provider.
    case invoiceAccepted = "invoice_accepted"
    /// The lock transaction is broadcast, not yet confirmed.
    case lockBroadcast = "lock_broadcast"
    /// The lock has the required confirmations.
    case lockConfirmed = "lock_confirmed"
    /// The provider saw the preimage (push or claim) and settled the invoice. Final.
    case settled = "settled"
    /// The provider refunded its lock after the timeout and cancelled the invoice. Final.
    case refunded = "refunded"
    /// The provider cancelled before locking (the payment returns). Final.
    case cancelled = "cancelled"

    public var isFinal: Bool {
        switch self {
        case .settled, .refunded, .cancelled: return true
        case .invoicePending, .invoiceAccepted, .lockBroadcast, .lockConfirmed: return false
        }
    }
}
