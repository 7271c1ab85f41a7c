/// Why a Lightning backend call failed. Messages say what to check; they never carry
/// the credential, and the node's own text is passed on only as LND wrote it.
public enum LightningBackendError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No answer from the node at `url`: the connection failed, broke or timed out.
    case unreachable(url: String, reason: String)
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

    public var description: String {
        switch self {
        case .unreachable(let url, let reason):
            return "Lightning node at \(url) is unreachable: \(reason)"
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
        }
    }

    /// LND's gRPC NotFound (an unknown invoice or payment).
    public var isNotFound: Bool {
        if case .lnd(let code, _, _) = self { return code == 5 }
        return false
    }
}
