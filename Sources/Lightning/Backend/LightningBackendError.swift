/// Why a Lightning backend call failed. Messages say what to check; they never carry
/// the credential, and the node's own text is passed on only as LND wrote it.
public enum LightningBackendError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No answer from the node at `url`: the connection failed, broke or timed out. A
    /// request may have reached the node before the answer was lost.
    case unreachable(url: String, reason: String)
    /// Nothing listens at `url` (the connection was refused: LND is down or restarting,
    /// or the port is wrong). Unlike `unreachable`, the request was certainly never sent.
    case connectionRefused(url: String, reason: String)
    /// The node refused the credential (a missing, wrong or under-privileged macaroon).
    case unauthorized(url: String, message: String)
    /// The node runs on another network than this one is configured for.
    case wrongNetwork(url: String, expected: String, actual: String)
    /// The node answered with an error: LND's gRPC status code, its message and the
    /// HTTP status that carried it.
    case lnd(code: Int, message: String, httpStatus: Int)
    /// The node answered with something that is not what LND sends.
    case malformedResponse(url: String, reason: String)
    /// The caller passed something that cannot be sent (a hash that is not 32 bytes).
    case invalidArgument(String)
    /// A payment stream that LND had accepted (HTTP 200) broke or carried an error line
    /// before a final status: the payment exists and may still succeed, so its status is
    /// unknown, never "refused". Track it (`trackPayment`) to learn the outcome.
    case paymentStatusUnknown(url: String, reason: String)

    public var description: String {
        switch self {
        case .unreachable(let url, let reason):
            return "Lightning node at \(url) is unreachable: \(reason)"
        case .connectionRefused(let url, let reason):
            return "Lightning node at \(url) is unreachable: \(reason) (nothing is listening: is LND running, and is "
                + "lnd_rest_port its REST port?)"
        case .unauthorized(let url, let message):
            return "Lightning node at \(url) refused the macaroon (\(message)); check the macaroon file and its permissions"
        case .wrongNetwork(let url, let expected, let actual):
            return "Lightning node at \(url) runs on \(actual), but this node is configured for \(expected); refusing to use it"
        case .lnd(let code, let message, let httpStatus):
            return "LND error (code \(code), HTTP \(httpStatus)): \(message)"
        case .malformedResponse(let url, let reason):
            return "unexpected answer from the Lightning node at \(url): \(reason)"
        case .invalidArgument(let reason):
            return "invalid Lightning request: \(reason)"
        case .paymentStatusUnknown(let url, let reason):
            return "the status of the payment at the Lightning node \(url) is unknown (\(reason)); it may still "
                + "succeed, so it is tracked, not sent again"
        }
    }

    /// LND's gRPC AlreadyExists on a send (HTTP 409: "invoice is already paid", "payment
    /// is in transition"): the node has this payment already, so track it, never resend.
    public var isAlreadyExists: Bool {
        if case .lnd(let code, _, _) = self { return code == 6 }
        return false
    }

    /// No answer, whether or not the request was sent: try again later.
    public var isUnreachable: Bool {
        switch self {
        case .unreachable, .connectionRefused: return true
        default: return false
        }
    }

    /// LND's gRPC NotFound (an unknown invoice or payment).
    public var isNotFound: Bool {
        if case .lnd(let code, _, _) = self { return code == 5 }
        return false
    }
}
