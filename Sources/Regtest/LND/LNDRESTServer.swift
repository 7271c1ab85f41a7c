import Lightning
import Transport

/// One simulated node's LND REST endpoint: its own loopback port and macaroon, serving
/// `LNDRESTHandler` over HTTP/1.1 until stopped.
///
///     let server = try await LNDRESTServer.start(network: network, node: "bob", loop: loop)
///     // http://127.0.0.1:\(server.port), header Grpc-Metadata-macaroon: \(server.macaroonHex)
///     await server.stop()
///
/// Plain HTTP: LND itself serves REST over TLS only; the hub leaves TLS out and binds
/// loopback, which the node's client (no TLS yet) expects.
public final class LNDRESTServer: Sendable {
    public let handler: LNDRESTHandler
    public let host: String
    public let port: Int
    private let listener: TCPListener
    private let acceptor: Task<Void, Never>

    private init(handler: LNDRESTHandler, host: String, listener: TCPListener, acceptor: Task<Void, Never>) {
        self.handler = handler
        self.host = host
        self.port = listener.port
        self.listener = listener
        self.acceptor = acceptor
    }

    public var node: String { handler.node }
    public var macaroon: [UInt8] { handler.macaroon }
    /// What a client sends in `Grpc-Metadata-macaroon` (and what the hub prints).
    public var macaroonHex: String { handler.macaroon.hex }
    public var url: String { "http://\(host):\(port)" }

    /// Binds `host:port` (0: any free port) and serves `node`.
    /// - Parameters:
    ///   - macaroons: the node's root key and macaroons; by default a fresh random root
    ///     key, so every hub run has fresh credentials.
    ///   - blockHash: the tip's hash in hex for `getinfo`.
    public static func start(network: LightningNetwork, node: String, host: String = "127.0.0.1", port: Int = 0,
                             macaroons: LNDMacaroonAuthority = LNDMacaroonAuthority(), loop: EventLoop,
                             configuration: HTTPServer.Configuration = HTTPServer.Configuration(),
                             blockHash: @escaping @Sendable () -> String = { "" }) async throws -> LNDRESTServer {
        let handler = try LNDRESTHandler(network: network, node: node, macaroons: macaroons,
                                         blockHash: blockHash)
        let http = HTTPServer(configuration: configuration, sleeper: loop.sleeper, streamingHandler: handler.handle)
        let listener = try await TCPListener.bind(host: host, port: port, loop: loop)
        let acceptor = Task {
            await withDiscardingTaskGroup { group in
                // accept() returns nil once the listener is closed, and throws when the
                // task is cancelled: either ends the loop, and the group cancels the rest.
                while let connection = try? await listener.accept() {
                    group.addTask { await http.serve(connection: connection) }
                }
                group.cancelAll()
            }
        }
        return LNDRESTServer(handler: handler, host: host, listener: listener, acceptor: acceptor)
    }

    /// Stops accepting, closes every connection (open streams end) and waits for them.
    public func stop() async {
        acceptor.cancel()
        await listener.close()
        await acceptor.value
    }
}
