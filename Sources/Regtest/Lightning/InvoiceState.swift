/// An invoice's state, as LND's `lnrpc.Invoice.InvoiceState` (names and numbers).
///
/// OPEN -> SETTLED (plain invoice paid), OPEN -> ACCEPTED -> SETTLED or CANCELED (hold
/// invoice), OPEN -> CANCELED (cancelled or expired unpaid). SETTLED and CANCELED are final.
public enum InvoiceState: Int, Sendable, Hashable, CaseIterable {
    case open = 0
    case settled = 1
    case canceled = 2
    case accepted = 3

    /// LND's JSON name (`OPEN`, `SETTLED`, `CANCELED`, `ACCEPTED`).
    public var lndName: String {
        switch self {
        case .open: return "OPEN"
        case .settled: return "SETTLED"
        case .canceled: return "CANCELED"
        case .accepted: return "ACCEPTED"
        }
    }

    public var isFinal: Bool { self == .settled || self == .canceled }
}
