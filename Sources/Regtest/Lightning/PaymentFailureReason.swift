/// Why a payment failed, as LND's `lnrpc.PaymentFailureReason` (names and numbers).
///
/// LND has no separate reason for a fee or CLTV limit: a route over either limit is
/// simply not found, so both are `noRoute`. `PaymentFailureDetail` says which.
public enum PaymentFailureReason: Int, Sendable, Hashable {
    case none = 0
    case timeout = 1
    case noRoute = 2
    case error = 3
    case incorrectPaymentDetails = 4
    case insufficientBalance = 5
    case canceled = 6

    public var lndName: String {
        switch self {
        case .none: return "FAILURE_REASON_NONE"
        case .timeout: return "FAILURE_REASON_TIMEOUT"
        case .noRoute: return "FAILURE_REASON_NO_ROUTE"
        case .error: return "FAILURE_REASON_ERROR"
        case .incorrectPaymentDetails: return "FAILURE_REASON_INCORRECT_PAYMENT_DETAILS"
        case .insufficientBalance: return "FAILURE_REASON_INSUFFICIENT_BALANCE"
        case .canceled: return "FAILURE_REASON_CANCELED"
        }
    }
}
