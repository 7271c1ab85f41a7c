/// An outgoing payment's status, as LND's `lnrpc.Payment.PaymentStatus` (names and
/// numbers; the deprecated UNKNOWN is not used). Like LND 0.18 and later, a payment is
/// INITIATED when it is recorded and IN_FLIGHT once an HTLC is out; one that finds no
/// route goes from INITIATED straight to FAILED.
public enum PaymentStatus: Int, Sendable, Hashable {
    case inFlight = 1
    case succeeded = 2
    case failed = 3
    case initiated = 4

    public var lndName: String {
        switch self {
        case .inFlight: return "IN_FLIGHT"
        case .succeeded: return "SUCCEEDED"
        case .failed: return "FAILED"
        case .initiated: return "INITIATED"
        }
    }

    public var isFinal: Bool { self == .succeeded || self == .failed }
}
