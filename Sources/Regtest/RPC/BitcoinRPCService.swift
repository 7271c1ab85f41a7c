import Transport

/// The RPC server on a TCP port: a listener on the event loop, an `HTTPServer` per
/// connection running `BitcoinRPCServer`'s handler, and a clean stop. The executable and
/// the end-to-end tests both run the hub's RPC this way.
public final class BitcoinRPCService: Sendable {
    public let listener: TCPListener
    public let server: BitcoinRPCServer
    private let serving: Task<Void, Never>

    /// The bound port (the real one when 0 was asked for).
    public var port: Int { listener.port }
    public var host: String { listener.address.host }

    private init(listener: TCPListener, server: BitcoinRPCServer, serving: Task<Void, Never>) {
        self.listener = listener
        self.server = server
        self.serving = serving
    }

    /// Binds `host:port` (0: a free port) and starts serving.
    public static func start(_ server: BitcoinRPCServer, host: String = "127.0.0.1", port: Int = 0,
                             loop: EventLoop) async throws -> BitcoinRPCService {
        let listener = try await TCPListener.bind(host: host, port: port, loop: loop)
        let http = HTTPServer(sleeper: loop.sleeper, handler: server.handler)
        let serving = Task<Void, Never> {
            // The loop ends when the listener closes; a failed accept ends it too, and
            // there is no one to report that to but the clients, who see the port closed.
            _ = try? await http.acceptLoop(ListenerConnections(listener: listener))
        }
        return BitcoinRPCService(listener: listener, server: server, serving: serving)
    }

    /// Stops listening, closes the open connections and waits for them to end.
    public func stop() async {
        await listener.close()
        serving.cancel()
        await serving.value
    }
}

/// A listener's accepted connections as the sequence `HTTPServer.acceptLoop` serves; it
/// ends when the listener closes.
struct ListenerConnections: AsyncSequence, Sendable {
    typealias Element = any ByteStream
    let listener: TCPListener

    struct AsyncIterator: AsyncIteratorProtocol {
        let listener: TCPListener
        mutating func next() async throws -> (any ByteStream)? { try await listener.accept() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(listener: listener) }
}
