/// A whole request: head and body. The parser emits the head as a request with an empty
/// body, then the body separately, so streaming callers never buffer what they do not need.
public struct HTTPRequest: Sendable, Equatable {
    public var method: HTTPMethod
    /// The request target as sent, normally origin-form (`/v1/getinfo?x=1`).
    public var target: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(method: HTTPMethod = .get, target: String = "/", version: HTTPVersion = .http1_1,
                headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// Whether the sender wants the connection kept open after this exchange (RFC 9112 9.3):
    /// HTTP/1.1 unless `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`.
    public var keepAlive: Bool {
        HTTPRequest.keepAlive(version: version, headers: headers)
    }

    static func keepAlive(version: HTTPVersion, headers: HTTPHeaders) -> Bool {
        let tokens = headers.tokens(name: "connection")
        if tokens.contains("close") { return false }
        return version.keepsAliveByDefault || tokens.contains("keep-alive")
    }
}
