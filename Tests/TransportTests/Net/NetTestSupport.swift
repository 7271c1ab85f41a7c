import Synchronization
import XCTest
@testable import Transport

/// Peers on real loopback TCP, all on one event loop per test.
enum NetFixtures {
    typealias F = ChannelFixtures
    typealias P = PeerFixtures

    /// `crowd`: every test dials from 127.0.0.1, so a test of many connections at once
    /// lifts the per-host budgets (and the handshake budget) to that many.
    static func limits(handshake: UInt64 = 2000, idle: UInt64 = 5000, inbound: Int = 256,
                       crowd: Int? = nil) -> PeerLimits {
        var limits = PeerLimits(channel: F.fastLimits(handshake: handshake, idle: idle), maxInboundConnections: inbound)
        if let crowd {
            limits.maxHandshakes = max(limits.maxHandshakes, crowd)
            limits.maxHandshakesPerHost = crowd
            limits.maxConnectionsPerHost = crowd
            limits.maxConnectionsPerNetworkGroup = crowd
        }
        return limits
    }

    /// A listening node: `identity`'s server behind a `PeerListener` on a free port.
    static func node(_ identity: NodeIdentity, loop: EventLoop, limits: PeerLimits = limits(),
                     log: PeerLog = .silent, handlers: PeerHandlers = PeerHandlers(onRequest: P.echo()))
        async throws -> PeerListener {
        let server = PeerServer(identity: identity, sleeper: loop.sleeper, limits: limits, log: log, handlers: handlers)
        return try await PeerListener.start(server: server, loop: loop)
    }

    static func dialer(_ identity: NodeIdentity, loop: EventLoop, limits: PeerLimits = limits(),
                       log: PeerLog = .silent, handlers: PeerHandlers = PeerHandlers()) -> PeerDialer {
        PeerDialer(identity: identity, loop: loop, limits: limits, log: log, handlers: handlers)
    }

    /// A plain TCP connection to `listener`, for peers that misbehave below the peer layer.
    static func rawConnection(to listener: PeerListener, from source: String? = nil) async throws -> TCPConnection {
        guard let source else {
            return try await TCPConnection.connect(host: "127.0.0.1", port: listener.port, loop: listener.loop)
        }
        return try await TCPConnection.connect(host: "127.0.0.1", port: listener.port, from: source, loop: listener.loop)
    }
}

/// A hand-driven dialler over TCP (see `RawDialler`).
typealias NetRawDialler = RawDialler<TCPConnection>

extension RawDialler where Stream == TCPConnection {
    /// With `firstMessage`, that message's frame goes out in the same write as handshake
    /// message 3, so the listener receives both in one TCP segment.
    static func dial(_ listener: PeerListener, identity: NodeIdentity,
                     firstMessage: [UInt8]? = nil) async throws -> NetRawDialler {
        try await dial(try await NetFixtures.rawConnection(to: listener), identity: identity,
                       expecting: listener.server.identity.pubky, firstMessage: firstMessage)
    }

    /// Reads until the peer closes (nil) or resets the connection: the server's verdict.
    func readUntilClosed() async throws {
        do {
            while try await stream.read() != nil {}
        } catch let error as LibUVError where error.isConnectionReset {
            // A reset is the same verdict as a close.
        }
    }
}

extension XCTestCase {
    /// A fresh loop for one test; the test must `finish` it.
    func makeLoop() throws -> EventLoop {
        try EventLoop()
    }

    /// A loop, a listener, a connection and its accepted end; all closed after `body`, and
    /// the loop must close with no handle left.
    func withConnectedPair(
        file: StaticString = #filePath, line: UInt = #line,
        _ body: (EventLoop, TCPConnection, TCPConnection) async throws -> Void
    ) async throws {
        let loop = try EventLoop()
        let listener = try await TCPListener.bind(loop: loop)
        let client = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port, loop: loop)
        let accepted = try await listener.accept()
        let server = try XCTUnwrap(accepted)
        try await body(loop, client, server)
        await client.close()
        await server.close()
        await listener.close()
        await finish(loop, file: file, line: line)
    }

    /// Shuts the loop down and checks that no libuv handle leaked.
    func finish(_ loop: EventLoop, file: StaticString = #filePath, line: UInt = #line) async {
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0, "a libuv handle leaked", file: file, line: line)
    }
}
