/// The HTTP client's connector for a TLS backend (LND's REST port): TCP on the event loop,
/// then the TLS handshake, trusting only the certificates in `certificatePath`, which is
/// read again for every connection (LND may have regenerated it).
///
/// The file is a few kilobytes read on the caller's task, never on the event loop's thread.
///
/// The OpenSSL context (and the sessions kept for resumption) is shared by every connection
/// while the file's certificates stay the same, and built afresh when they change.
public struct TLSHTTPConnector: Sendable {
    public let loop: EventLoop
    public let certificatePath: String
    private let contexts = TLSClientContexts()

    public init(loop: EventLoop, certificatePath: String) {
        self.loop = loop
        self.certificatePath = certificatePath
    }

    public func connect(host: String, port: Int) async throws -> TLSStream {
        let client = try contexts.context(forFile: certificatePath)
        let tcp = try await TCPConnection.connect(host: host, port: port, loop: loop)
        return try await TLSStream.connect(over: tcp, host: host, port: port, client: client)
    }

    /// The closure `HTTPClient` takes.
    public var connector: HTTPClient.Connector {
        { host, port in try await self.connect(host: host, port: port) }
    }
}
