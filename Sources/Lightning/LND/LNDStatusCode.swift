/// The gRPC status codes LND's REST errors carry (`{"code": n, "message": ..., "details": []}`),
/// and the HTTP status its gateway sends with each.
///
/// Most of LND's errors are plain Go errors, which gRPC reports as `unknown` (HTTP 500):
/// a missing or wrong macaroon included. Only a few calls choose a code (an unknown
/// invoice is `notFound`, a payment already in flight `alreadyExists`).
public enum LNDStatusCode: Int, Sendable, Hashable {
    case ok = 0
    case canceled = 1
    case unknown = 2
    case invalidArgument = 3
    case deadlineExceeded = 4
    case notFound = 5
    case alreadyExists = 6
    case permissionDenied = 7
    case resourceExhausted = 8
    case failedPrecondition = 9
    case aborted = 10
    case outOfRange = 11
    case unimplemented = 12
    case `internal` = 13
    case unavailable = 14
    case dataLoss = 15
    case unauthenticated = 16

    /// grpc-gateway's `HTTPStatusFromCode`.
    public var httpStatus: Int {
        switch self {
        case .ok: return 200
        case .canceled: return 499
        case .unknown, .internal, .dataLoss: return 500
        case .invalidArgument, .failedPrecondition, .outOfRange: return 400
        case .deadlineExceeded: return 504
        case .notFound: return 404
        case .alreadyExists, .aborted: return 409
        case .permissionDenied: return 403
        case .resourceExhausted: return 429
        case .unimplemented: return 501
        case .unavailable: return 503
        case .unauthenticated: return 401
        }
    }

    /// LND's macaroon interceptor's messages: how a refused credential is recognised,
    /// since it arrives as code 2 / HTTP 500 like any other error.
    public static let missingMacaroonMessage = "expected 1 macaroon, got 0"
    public static let macaroonMismatchMessage = "verification failed: signature mismatch after caveat verification"
    /// A valid macaroon that lacks the call's permission (the bakery's ErrPermissionDenied).
    public static let permissionDeniedMessage = "permission denied"
}
