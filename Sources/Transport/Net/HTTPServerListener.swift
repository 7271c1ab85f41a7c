/// An `HTTPServer` on a TCP port of the loop: what the regtest hub uses to serve Bitcoin
/// Core's and LND's APIs on loopback.
///
///     let http = try await HTTPServerListener.start(server: server, port: 0, loop: loop)
///     let endpoint = HTTPEndpoint(host: "127.0.0.1", port: http.port)
///     ...
///     await http.close()
public final class HTTPServerListener: Sendable {
    public let server: HTTPServer
    public let listener: TCPListener
    /// The bound port.
    public var port: Int { listener.port }

    private let acceptLoop: Task<Void, Never>

    private init(server: HTTPServer, listener: TCPListener) {
        self.server = server
        self.listener = listener
        acceptLoop = Task {
            // Throws only if a child's stream does, which `serve` never lets happen, or on
            // cancellation, which is `close`.
            try? await server.acceptLoop(TCPAcceptSequence(listener: listener))
        }
    }

    /// Binds `host:port` (port 0: any free port) and starts serving.
    ///
    /// The server's `maxConnections` refuses extra connections; the TCP listener's own cap
    /// sits a little above it so the server is the one that decides.
    public static func start(server: HTTPServer, host: String = "127.0.0.1", port: Int = 0, backlog: Int32 = 511,
                             loop: EventLoop) async throws -> HTTPServerListener {
        let cap = server.configuration.maxConnections
        let listener = try await TCPListener.bind(host: host, port: port, backlog: backlog,
                                                  maxConnections: cap + max(16, cap / 4), loop: loop)
        return HTTPServerListener(server: server, listener: listener)
    }

    /// Stops listening and closes every connection, in-flight exchanges included (a
    /// kept-alive client would otherwise hold the server open until its idle timeout).
    public func close() async {
        await listener.close()
        acceptLoop.cancel()
        await acceptLoop.value
    }
}
