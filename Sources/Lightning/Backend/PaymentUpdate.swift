/// One status of an outgoing payment, as `LightningBackend.payInvoice` streams it.
public struct PaymentUpdate: Sendable, Hashable {
    public enum Status: Sendable, Hashable {
        /// HTLCs are out (or about to be): the money may still go either way.
        case inFlight
        /// The payee revealed the preimage: the proof of payment.
        case succeeded(preimage: [UInt8])
        case failed(FailureReason)

        public var isFinal: Bool {
            if case .inFlight = self { return false }
            return true
        }
    }

    /// Why a payment failed, as LND's `PaymentFailureReason`. LND has no reason of its own
    /// for a route over the fee or CLTV limit: such a route is not found (`noRoute`).
    public enum FailureReason: Sendable, Hashable, CustomStringConvertible {
        case timeout
        case noRoute
        case error
        case incorrectPaymentDetails
        case insufficientBalance
        case canceled
        /// A reason this client does not know (a newer LND), by LND's name.
        case other(String)

        /// Reads LND's name (`FAILURE_REASON_NO_ROUTE`).
        public init(lndName: String) {
            switch lndName {
            case "FAILURE_REASON_TIMEOUT": self = .timeout
            case "FAILURE_REASON_NO_ROUTE": self = .noRoute
            case "FAILURE_REASON_ERROR": self = .error
            case "FAILURE_REASON_INCORRECT_PAYMENT_DETAILS": self = .incorrectPaymentDetails
            case "FAILURE_REASON_INSUFFICIENT_BALANCE": self = .insufficientBalance
            case "FAILURE_REASON_CANCELED": self = .canceled
            default: self = .other(lndName)
            }
        }

        public var description: String {
            switch self {
            // LND also gives TIMEOUT for a held payment the payee cancelled after the
            // payment's timeout_seconds: the money came back, whatever the route did.
            case .timeout: return "LND's payment timeout passed before it succeeded (no route in time, or the payee "
                + "cancelled a held payment after the timeout); the amount is back in the channel"
            case .noRoute: return "no route within the fee and CLTV limits"
            case .error: return "the payment failed with an unexpected error"
            case .incorrectPaymentDetails: return "the payee refused it (unknown, cancelled or wrong amount)"
            case .insufficientBalance: return "not enough outbound balance"
            // LND 0.18+: a `cancelable` payment whose caller cancelled it on the paying
            // node; nothing to do with the payee or the route.
            case .canceled: return "cancelled on the paying node by its caller, not by the payee"
            case .other(let name): return name
            }
        }
    }

    public var paymentHash: [UInt8]
    public var status: Status
    /// The amount delivered to the payee.
    public var amountMsat: UInt64
    /// The routing fee paid (or reserved while in flight).
    public var feeMsat: UInt64
    /// The HTLCs sent for the payment so far (none before a route was found).
    public var attempts: [PaymentAttempt]

    public init(paymentHash: [UInt8], status: Status, amountMsat: UInt64, feeMsat: UInt64,
                attempts: [PaymentAttempt] = []) {
        self.paymentHash = paymentHash
        self.status = status
        self.amountMsat = amountMsat
        self.feeMsat = feeMsat
        self.attempts = attempts
    }

    /// The height until which the payer's money may stay locked: the latest
    /// `total_time_lock` of an HTLC still in flight; nil when none is.
    public var lockedUntilHeight: Int? {
        attempts.filter { $0.status == .inFlight }.map(\.totalTimeLock).max()
    }
}
