import Lightning

/// Every refusal of a simulator call: what LND answers with a gRPC error (and its REST
/// gateway with an error body) before anything happens. Failures of a payment that was
/// started are not errors: they arrive as a FAILED `SimulatedPayment`.
///
/// `description` is LND's error text where LND has one (invoices/errors.go,
/// invoicesrpc/addinvoice.go, routerrpc/router_backend.go, zpay32), so clients that
/// match on LND's messages behave the same against the hub.
public enum LightningSimError: Error, Sendable, Equatable, CustomStringConvertible {
    // MARK: nodes (hub control)
    case unknownNode(String)
    case duplicateNode(String)
    /// Funding that would take the network past 21 million BTC.
    case amountTooLarge

    // MARK: invoices
    /// LND ErrDuplicateInvoice.
    case duplicateInvoice
    /// LND ErrInvoiceNotFound.
    case invoiceNotFound
    /// LND ErrInvoiceStillOpen: settling an invoice no HTLC has reached.
    case invoiceStillOpen
    /// LND ErrInvoiceAlreadySettled.
    case invoiceAlreadySettled
    /// LND ErrInvoiceAlreadyCanceled.
    case invoiceAlreadyCanceled
    /// `hub_ln_release ... settle` of a hold invoice made over REST: the hub does not know
    /// its preimage (its payee settles it with `/v2/invoices/settle`).
    case preimageUnknown
    /// A hash or preimage that is not 32 bytes (lntypes' message).
    case invalidHashLength(Int)
    case invalidPreimageLength(Int)
    case cltvExpiryTooSmall(UInt64)
    case cltvExpiryTooLarge(UInt64)
    /// The invoice could not be written (a memo too long for BOLT11, say).
    case invoiceEncoding(BOLT11Error)
    /// LND's AddInvoice refuses a memo over `invoices.MaxMemoSize`, 1024 bytes.
    case memoTooLarge(Int)
    /// LND's AddInvoice refuses an expiry over one year (31,536,000 s).
    case invoiceExpiryTooLong(UInt64)
    /// LND's AddInvoice refuses an amount over 100,000 BTC (counted in whole sat).
    case invoiceAmountTooLarge(msat: UInt64)

    // MARK: payments
    /// The payment request does not decode.
    case invalidPaymentRequest(BOLT11Error)
    /// The payment request is for another chain (zpay32's message).
    case wrongNetwork(prefix: String)
    case invoiceExpired(validUntil: UInt64)
    case amountRequired
    case amountNotAllowed
    case selfPayment
    case timeoutRequired
    case cltvLimitTooLarge(limit: UInt32, max: UInt32)
    /// LND ErrPaymentInFlight: a payment for this hash is still in flight.
    case paymentInFlight
    /// LND ErrAlreadyPaid: a payment for this hash already succeeded.
    case alreadyPaid
    /// No payment for this hash from this node.
    case paymentNotFound

    public var description: String {
        switch self {
        case .unknownNode(let name): return "no Lightning node named \(name)"
        case .duplicateNode(let name): return "a Lightning node named \(name) already exists"
        case .amountTooLarge: return "amount exceeds the 21 million BTC a network can hold"
        case .duplicateInvoice: return "invoice with payment hash already exists"
        case .invoiceNotFound: return "unable to locate invoice"
        case .invoiceStillOpen: return "invoice still open"
        case .invoiceAlreadySettled: return "invoice already settled"
        case .invoiceAlreadyCanceled: return "invoice already canceled"
        case .preimageUnknown: return "a hold invoice's preimage is its payee's: settle it with /v2/invoices/settle"
        case .invalidHashLength(let length): return "invalid hash length of \(length), want 32"
        case .invalidPreimageLength(let length): return "invalid preimage length of \(length), want 32"
        case .cltvExpiryTooSmall(let delta): return "CLTV delta of \(delta) must be greater than minimum of \(LightningNetwork.minCLTVDelta)"
        case .cltvExpiryTooLarge(let delta): return "CLTV delta of \(delta) is too large, max accepted is: \(UInt16.max)"
        case .invoiceEncoding(let error): return "unable to create invoice: \(error)"
        case .memoTooLarge(let bytes): return "memo too large: \(bytes) bytes (maxsize=\(LightningNetwork.maxMemoBytes))"
        case .invoiceExpiryTooLong(let seconds):
            return "expiry of \(GoText.float(seconds)) seconds greater than max expiry of "
                + "\(GoText.float(LightningNetwork.maxInvoiceExpirySeconds)) seconds"
        case .invoiceAmountTooLarge(let msat):
            return "invoice amount \(GoText.bitcoin(sat: msat / 1_000)) is too large, max is "
                + GoText.bitcoin(sat: LightningNetwork.maxInvoiceAmountSat)
        case .invalidPaymentRequest(let error): return "invalid payment request: \(error)"
        case .wrongNetwork: return "invoice not for current active network 'regtest'"
        // routerrpc's ValidatePayReqExpiry: the time as Go prints it (LND's host in UTC).
        case .invoiceExpired(let validUntil): return "invoice expired. Valid until \(GoText.time(unix: validUntil))"
        case .amountRequired: return "amount must be specified when paying a zero amount invoice"
        case .amountNotAllowed: return "amount must not be specified when paying a non-zero amount invoice"
        case .selfPayment: return "self-payments not allowed"
        case .timeoutRequired: return "timeout_seconds must be specified"
        case .cltvLimitTooLarge(let limit, let max): return "total time lock of \(limit) exceeds max allowed \(max)"
        case .paymentInFlight: return "payment is in transition"
        case .alreadyPaid: return "invoice is already paid"
        case .paymentNotFound: return "payment isn't initiated"
        }
    }
}
