/// A whole response: status line, headers and body.
public struct HTTPResponse: Sendable, Equatable {
    public var status: HTTPStatus
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: HTTPStatus = .ok, version: HTTPVersion = .http1_1,
                headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// A response whose body is UTF-8 text, labelled with the given content type.
    public init(status: HTTPStatus, contentType: String, body: String) {
        self.init(status: status, headers: ["Content-Type": contentType], body: Array(body.utf8))
    }

    /// Whether the headers allow the connection to stay open. A close-delimited body also
    /// ends the connection; the parser's `.end(keepAlive:)` accounts for that.
    public var keepAlive: Bool {
        HTTPRequest.keepAlive(version: version, headers: headers)
    }
}
