import Synchronization
import Transport

/// A `PkarrRelay` on a loopback port. `down` closes the port, so clients see a refused
/// connection as from a relay that is gone; `up` listens on the same port again.
public final class PkarrRelayService: Sendable {
    public let relay: PkarrRelay
    public let host: String
    public let port: Int
    private let loop: EventLoop
    private let listener: Mutex<HTTPServerListener?>

    public var url: String { "http://\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    private init(relay: PkarrRelay, host: String, port: Int, loop: EventLoop, listener: HTTPServerListener) {
        self.relay = relay
        self.host = host
        self.port = port
        self.loop = loop
        self.listener = Mutex(listener)
    }

    public static func start(host: String = "127.0.0.1", port: Int = 0, loop: EventLoop) async throws -> PkarrRelayService {
        let relay = PkarrRelay()
        let listener = try await listen(relay, host: host, port: port, loop: loop)
        return PkarrRelayService(relay: relay, host: host, port: listener.port, loop: loop, listener: listener)
    }

    /// Sets the relay's mode; `down` closes its port and any other mode opens it again.
    public func setMode(_ mode: PkarrRelay.Mode) async throws {
        relay.setMode(mode)
        if mode == .down {
            let open = listener.withLock { listener in defer { listener = nil }; return listener }
            await open?.close()
        } else if listener.withLock({ $0 == nil }) {
            let reopened = try await Self.listen(relay, host: host, port: port, loop: loop)
            listener.withLock { $0 = reopened }
        }
    }

    public func stop() async {
        let open = listener.withLock { listener in defer { listener = nil }; return listener }
        await open?.close()
    }

    private static func listen(_ relay: PkarrRelay, host: String, port: Int, loop: EventLoop) async throws -> HTTPServerListener {
        let server = HTTPServer(sleeper: loop.sleeper, handler: relay.handler)
        return try await HTTPServerListener.start(server: server, host: host, port: port, loop: loop)
    }
}
