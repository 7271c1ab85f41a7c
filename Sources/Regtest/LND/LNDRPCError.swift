import Lightning
import Transport

/// An error as LND's REST gateway answers it: a gRPC status code and LND's message.
/// A unary call sends `{"code": n, "message": ..., "details": []}` with the code's HTTP
/// status; a streamed call sends the same object inside `{"error": ...}`.
public struct LNDRPCError: Error, Sendable, Equatable {
    var code: LNDStatusCode
    var message: String

    init(_ code: LNDStatusCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// LND's answers to a missing or wrong macaroon: its interceptor's plain errors,
    /// hence code 2 and HTTP 500 (lnd issue #2332), not 401.
    static let missingMacaroon = LNDRPCError(.unknown, LNDStatusCode.missingMacaroonMessage)
    static let macaroonMismatch = LNDRPCError(.unknown, LNDStatusCode.macaroonMismatchMessage)
    /// A valid macaroon without the call's permission: the bakery's ErrPermissionDenied.
    static let permissionDenied = LNDRPCError(.unknown, LNDStatusCode.permissionDeniedMessage)

    /// How LND reports each refusal of the simulator. Most are plain Go errors in LND
    /// (code 2); the codes below are the ones LND sets itself.
    init(_ error: LightningSimError, notFoundCode: Bool = false) {
        switch error {
        case .invoiceNotFound where notFoundCode, .paymentNotFound:
            self.init(.notFound, error.description)
        case .paymentInFlight, .alreadyPaid:
            // routerrpc's SendPaymentV2 turns both into AlreadyExists.
            self.init(.alreadyExists, error.description)
        default:
            self.init(.unknown, error.description)
        }
    }

    var body: JSONValue {
        .object(["code": .integer(code.rawValue), "message": .string(message), "details": .array([])])
    }

    var httpStatus: HTTPStatus { HTTPStatus(code: code.httpStatus) }

    /// The whole answer of a unary call.
    var unaryResponse: HTTPResponse {
        HTTPResponse(status: httpStatus, headers: ["Content-Type": "application/json"], body: body.canonicalBytes)
    }

    /// The whole answer of a streamed call refused before its first message: the gateway
    /// then still has the status line to set, and writes the one error line.
    var streamResponse: HTTPResponse {
        HTTPResponse(status: httpStatus, headers: ["Content-Type": "application/json"],
                     body: JSONValue.object(["error": body]).canonicalBytes + [0x0A])
    }
}
