/// An invoice as its payee node reports it: what the swap engine checks before locking
/// funds (state, amount, and the expiry height of the HTLC it holds).
public struct InvoiceStatus: Sendable, Hashable {
    /// LND's invoice states. OPEN -> ACCEPTED (a hold invoice's HTLC arrived) ->
    /// SETTLED or CANCELED; OPEN -> CANCELED when cancelled or expired unpaid.
    public enum State: String, Sendable, Hashable, CaseIterable {
        case open = "OPEN"
        case accepted = "ACCEPTED"
        case settled = "SETTLED"
        case canceled = "CANCELED"

        public var isFinal: Bool { self == .settled || self == .canceled }
    }

    /// One HTLC paying the invoice.
    public struct HTLC: Sendable, Hashable {
        /// LND's HTLC states: held, settled, or given back.
        public enum State: String, Sendable, Hashable {
            case accepted = "ACCEPTED"
            case settled = "SETTLED"
            case canceled = "CANCELED"
        }

        public var amountMsat: UInt64
        /// The block height at which it arrived.
        public var acceptHeight: Int
        /// The height at which the payer can take it back on chain: the payee must settle
        /// (or cancel) well before.
        public var expiryHeight: Int
        public var state: State

        public init(amountMsat: UInt64, acceptHeight: Int, expiryHeight: Int, state: State) {
            self.amountMsat = amountMsat
            self.acceptHeight = acceptHeight
            self.expiryHeight = expiryHeight
            self.state = state
        }
    }

    public var paymentHash: [UInt8]
    public var state: State
    /// The amount asked; 0 for an any-amount invoice.
    public var amountMsat: UInt64
    /// What settled HTLCs paid.
    public var amountPaidMsat: UInt64
    /// Known for plain invoices, and for hold invoices once settled.
    public var preimage: [UInt8]?
    public var paymentRequest: String
    public var memo: String
    /// Seconds since 1970.
    public var creationDate: UInt64
    public var expirySeconds: UInt64
    /// The final CLTV delta the invoice asks for.
    public var cltvExpiry: UInt64
    public var htlcs: [HTLC]

    public init(paymentHash: [UInt8], state: State, amountMsat: UInt64, amountPaidMsat: UInt64, preimage: [UInt8]?,
                paymentRequest: String, memo: String, creationDate: UInt64, expirySeconds: UInt64,
                cltvExpiry: UInt64, htlcs: [HTLC]) {
        self.paymentHash = paymentHash
        self.state = state
        self.amountMsat = amountMsat
        self.amountPaidMsat = amountPaidMsat
        self.preimage = preimage
        self.paymentRequest = paymentRequest
        self.memo = memo
        self.creationDate = creationDate
        self.expirySeconds = expirySeconds
        self.cltvExpiry = cltvExpiry
        self.htlcs = htlcs
    }

    /// The HTLCs still held (ACCEPTED): what a hold invoice's payee may settle.
    public var heldHTLCs: [HTLC] { htlcs.filter { $0.state == .accepted } }

    /// The earliest expiry among the held HTLCs: the height the payee must act before.
    public var earliestHeldExpiry: Int? { heldHTLCs.map(\.expiryHeight).min() }
}
