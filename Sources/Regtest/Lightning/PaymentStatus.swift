/// An outgoing payment's status, as LND's `lnrpc.Payment.PaymentStatus` (names and
/// numbers; the deprecated UNKNOWN and the INITIATED of newer releases are not used:
/// the simulator starts every attempt at once).
public enum PaymentStatus: Int, Sendable, Hashable {
    case inFlight = 1
    case succeeded = 2
    case failed = 3

    public var lndName: String {
        switch self {
        case .inFlight: return "IN_FLIGHT"
        case .succeeded: return "SUCCEEDED"
        case .failed: return "FAILED"
        }
    }

    public var isFinal: Bool { self != .inFlight }
}
