/// A JSON-RPC error as Bitcoin Core reports it: its numeric code (Core's `RPCErrorCode`)
/// and message. The HTTP status of a JSON-RPC 1.0 reply is derived from the code.
public struct RPCError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: Int
    public let message: String

    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    var json: OrderedJSON { .object(["code": .int(code), "message": .string(message)]) }

    // Standard JSON-RPC 2.0 codes.
    static let invalidRequestCode = -32600
    static let methodNotFoundCode = -32601
    static let parseErrorCode = -32700

    static func invalidRequest(_ message: String) -> RPCError { RPCError(code: invalidRequestCode, message: message) }
    static let methodNotFound = RPCError(code: methodNotFoundCode, message: "Method not found")
    static let parseError = RPCError(code: parseErrorCode, message: "Parse error")
    static let topLevelParseError = RPCError(code: parseErrorCode, message: "Top-level object parse error")

    // Core's application codes.
    /// RPC_MISC_ERROR: an exception that is not an RPC error (help text for a bad argument count).
    static func misc(_ message: String) -> RPCError { RPCError(code: -1, message: message) }
    /// RPC_TYPE_ERROR: a parameter of the wrong JSON type, or an unparsable amount.
    static func type(_ message: String) -> RPCError { RPCError(code: -3, message: message) }
    /// RPC_INVALID_ADDRESS_OR_KEY: unknown block, transaction or address.
    static func invalidAddressOrKey(_ message: String) -> RPCError { RPCError(code: -5, message: message) }
    /// RPC_INVALID_PARAMETER.
    static func invalidParameter(_ message: String) -> RPCError { RPCError(code: -8, message: message) }
    /// RPC_WALLET_NOT_FOUND: the hub keeps no wallets.
    static func walletNotFound(_ message: String) -> RPCError { RPCError(code: -18, message: message) }
    /// RPC_DESERIALIZATION_ERROR.
    static func deserialization(_ message: String) -> RPCError { RPCError(code: -22, message: message) }
    /// RPC_INTERNAL_ERROR: a hub failure (e.g. the kernel refused a block the hub built).
    static func internalError(_ message: String) -> RPCError { RPCError(code: -32603, message: message) }
}
