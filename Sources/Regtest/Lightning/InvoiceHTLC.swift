/// One HTLC paying an invoice, as LND's `lnrpc.InvoiceHTLC` reports it.
public struct InvoiceHTLC: Sendable, Hashable {
    /// LND's `lnrpc.InvoiceHTLCState` (names and numbers).
    public enum State: Int, Sendable, Hashable {
        case accepted = 0
        case settled = 1
        case canceled = 2

        public var lndName: String {
            switch self {
            case .accepted: return "ACCEPTED"
            case .settled: return "SETTLED"
            case .canceled: return "CANCELED"
            }
        }
    }

    public var amountMsat: UInt64
    /// The block height at which the HTLC arrived.
    public var acceptHeight: Int
    /// The block height after which the payer could take the HTLC back on chain.
    public var expiryHeight: Int
    public var state: State
    /// Seconds since 1970 (the injected clock).
    public var acceptTime: UInt64
    /// When the HTLC was settled or cancelled; nil while accepted.
    public var resolveTime: UInt64?

    public init(amountMsat: UInt64, acceptHeight: Int, expiryHeight: Int, state: State,
                acceptTime: UInt64, resolveTime: UInt64?) {
        self.amountMsat = amountMsat
        self.acceptHeight = acceptHeight
        self.expiryHeight = expiryHeight
        self.state = state
        self.acceptTime = acceptTime
        self.resolveTime = resolveTime
    }
}
