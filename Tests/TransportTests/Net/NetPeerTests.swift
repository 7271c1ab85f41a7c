import Glibc
import XCTest
@testable import Transport

/// Two nodes over real loopback TCP: dialling by pubky and host:port, requests and pushes
/// in both directions on one connection, and the dial's own failures.
final class NetPeerTests: XCTestCase {
    private typealias F = ChannelFixtures
    private typealias P = PeerFixtures
    private typealias N = NetFixtures

    func testTwoNodesRequestAndPushBothWaysOverTCP() async throws {
        let loop = try makeLoop()
        let alicePushes = PushCapture()
        let bobPushes = PushCapture()
        let alice = try await N.node(F.alice, loop: loop,
                                     handlers: PeerHandlers(onRequest: P.echo(tag: "alice", delayMilliseconds: 5, jitter: true),
                                                            onPush: alicePushes.handler))
        let dialer = N.dialer(F.bob, loop: loop,
                              handlers: PeerHandlers(onRequest: P.echo(tag: "bob"), onPush: bobPushes.handler))
        let toAlice = try await dialer.dial(F.alice.pubky, host: "127.0.0.1", port: alice.port)
        XCTAssertEqual(toAlice.remotePubky, F.alice.pubky)

        // Bob -> Alice: concurrent requests, each answered with its own reply.
        let replies = try await withThrowingTaskGroup(of: (String, String?).self) { group in
            for index in 0..<10 {
                group.addTask {
                    let reply = try await toAlice.request(P.request("b\(index)"), id: "b\(index)")
                    return ("b\(index)", P.requestID(of: reply))
                }
            }
            return try await group.reduce(into: [(String, String?)]()) { $0.append($1) }
        }
        XCTAssertEqual(replies.count, 10)
        for (sent, answered) in replies { XCTAssertEqual(sent, answered) }
        let fromAlice = try await toAlice.request(P.request("who"), id: "who")
        XCTAssertTrue(F.text(fromAlice)?.contains(#""from":"alice""#) == true)

        // Alice -> Bob on the connection Bob dialled: Alice's server knows Bob by pubky.
        let inbound = try await connection(from: F.bob.pubky, at: alice)
        XCTAssertEqual(inbound.direction, .inbound)
        let fromBob = try await inbound.request(P.request("to-bob"), id: "to-bob")
        XCTAssertEqual(P.requestID(of: fromBob), "to-bob")
        XCTAssertTrue(F.text(fromBob)?.contains(#""from":"bob""#) == true)

        // Pushes both ways, in order.
        for index in 0..<3 {
            try await toAlice.push(F.json(#"{"type":"Note","n":\#(index)}"#))
            try await inbound.push(F.json(#"{"type":"Tick","n":\#(index)}"#))
        }
        let atAlice = await alicePushes.waitForCount(3)
        let atBob = await bobPushes.waitForCount(3)
        XCTAssertEqual(atAlice, (0..<3).map { #"{"type":"Note","n":\#($0)}"# })
        XCTAssertEqual(atBob, (0..<3).map { #"{"type":"Tick","n":\#($0)}"# })

        await toAlice.close()
        let reason = await inbound.waitUntilClosed()
        XCTAssertEqual(reason, .closedByPeer)
        await alice.close()
        await finish(loop)
    }

    /// A dialler that keeps its whole in-flight allowance busy, sending the next request
    /// the moment a reply arrives, stays within the limit and must not be closed for it:
    /// the listener frees a request's slot before the reply can reach the peer, not after
    /// its own write returns (the `flood-quotes` scenario caught the listener counting a
    /// slot the peer had already reused).
    func testAPeerKeepingItsWholeInFlightAllowanceBusyIsNotClosed() async throws {
        let loop = try makeLoop()
        var limits = N.limits()
        limits.maxInFlightRequests = 4
        let alice = try await N.node(F.alice, loop: loop, limits: limits)
        let toAlice = try await N.dialer(F.bob, loop: loop, limits: limits)
            .dial(F.alice.pubky, host: "127.0.0.1", port: alice.port)
        let answered = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<limits.maxInFlightRequests {
                group.addTask {
                    for index in 0..<1_500 {
                        let id = "w\(worker)-\(index)"
                        let reply = try await toAlice.request(P.request(id), id: id)
                        XCTAssertEqual(P.requestID(of: reply), id)
                    }
                    return 1_500
                }
            }
            return try await group.reduce(0, +)
        }
        XCTAssertEqual(answered, 4 * 1_500)
        let reason = await toAlice.closedReason
        XCTAssertNil(reason)
        await toAlice.close()
        await alice.close()
        await finish(loop)
    }

    func testWrongPubkyIsRefusedNamingBothKeys() async throws {
        let loop = try makeLoop()
        let serverLog = LogCapture()
        let dialLog = LogCapture()
        let alice = try await N.node(F.alice, loop: loop, log: serverLog.log)
        let dialer = N.dialer(F.carol, loop: loop, log: dialLog.log)
        do {
            _ = try await dialer.dial(F.mallory.pubky, host: "127.0.0.1", port: alice.port)
            XCTFail("Alice's node must not pass for Mallory")
        } catch {
            XCTAssertEqual(error, .handshakeFailed(.wrongRemotePubky(expected: F.mallory.pubky, reached: F.alice.pubky)))
            XCTAssertTrue(error.description.contains(F.mallory.pubky.z32), error.description)
            XCTAssertTrue(error.description.contains(F.alice.pubky.z32), error.description)
        }
        XCTAssertEqual(dialLog.all, [.handshakeFailed(direction: .outbound,
                                                      error: .wrongRemotePubky(expected: F.mallory.pubky, reached: F.alice.pubky))])
        let logged = await serverLog.waitFor { $0 == .handshakeFailed(direction: .inbound, error: .notForThisNode) }
        XCTAssertTrue(logged, "\(serverLog.all)")

        // The right pubky at the same address still works.
        let good = try await dialer.dial(F.alice.pubky, host: "127.0.0.1", port: alice.port)
        let reply = try await good.request(P.request("ok"), id: "ok")
        XCTAssertEqual(P.requestID(of: reply), "ok")
        await good.close()
        await alice.close()
        await finish(loop)
    }

    /// TCP may deliver handshake message 3 and the first request in one segment; the
    /// listener must still answer at once (not when the idle timer fires).
    func testRequestInTheSameSegmentAsHandshakeMessage3IsAnswered() async throws {
        let loop = try makeLoop()
        let bob = try await N.node(F.bob, loop: loop, limits: N.limits(idle: 60_000))
        let raw = try await NetRawDialler.dial(bob, identity: F.alice, firstMessage: P.request("early"))
        var replies: [[UInt8]] = []
        while replies.isEmpty, let bytes = try await raw.stream.read() {
            replies += try raw.open(bytes)
        }
        XCTAssertEqual(replies.map(P.requestID(of:)), ["early"])
        await raw.stream.close()
        await bob.close()
        await finish(loop)
    }

    func testClosedPortIsAConnectFailureNamingTheAddress() async throws {
        let loop = try makeLoop()
        let listener = try await TCPListener.bind(host: "127.0.0.1", port: 0, loop: loop)
        let port = listener.port
        await listener.close()
        do {
            _ = try await N.dialer(F.alice, loop: loop).dial(F.bob.pubky, host: "127.0.0.1", port: port)
            XCTFail("nothing listens there")
        } catch {
            guard case .connectFailed(let address, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(address, "127.0.0.1:\(port)")
            XCTAssertTrue(reason.contains("ECONNREFUSED"), reason)
        }
        await finish(loop)
    }

    /// A contact that moved: the connect to its old port fails, `reResolve` names the new
    /// one, and the dial goes on there; the same answer as the address tried fails as before.
    func testAFailedConnectIsRetriedAtTheAddressReResolveGives() async throws {
        let loop = try makeLoop()
        let bob = try await N.node(F.bob, loop: loop)
        let listener = try await TCPListener.bind(host: "127.0.0.1", port: 0, loop: loop)
        let closedPort = listener.port
        await listener.close()
        let asked = Locked<[Pubky]>([])
        var dialer = N.dialer(F.alice, loop: loop)
        dialer.reResolve = { pubky in
            asked.withLock { $0.append(pubky) }
            return (host: "127.0.0.1", port: bob.port)
        }
        let connection = try await dialer.dial(F.bob.pubky, host: "127.0.0.1", port: closedPort)
        let reply = try await connection.request(P.request("moved"), id: "moved")
        XCTAssertEqual(P.requestID(of: reply), "moved")
        XCTAssertEqual(asked.withLock { $0 }, [F.bob.pubky])
        await connection.close()

        dialer.reResolve = { _ in (host: "127.0.0.1", port: closedPort) }
        do {
            _ = try await dialer.dial(F.bob.pubky, host: "127.0.0.1", port: closedPort)
            XCTFail("nothing listens there")
        } catch {
            guard case .connectFailed = error else { return XCTFail("\(error)") }
        }
        await bob.close()
        await finish(loop)
    }

    /// A listening socket whose accept queue is full drops new SYNs on Linux, so a connect
    /// to it hangs until the dialer's timer cancels it; the cancelled connect must leave no
    /// libuv handle behind.
    func testConnectTimeoutCancelsTheConnect() async throws {
        let loop = try makeLoop()
        let (socket, port) = try Self.listenWithoutAccepting()
        defer { close(socket) }
        // Fill the accept queue with connections nobody accepts, until a connect stalls
        // (with backlog 0 Linux queues one); each filler attempt is itself time-bounded.
        var fillers: [TCPConnection] = []
        for _ in 0..<8 {
            do {
                fillers.append(try await TCPConnectAttempt.run(host: "127.0.0.1", port: port, loop: loop,
                                                               sleeper: loop.sleeper, timeoutMilliseconds: 300,
                                                               readBufferLimit: 1024))
            } catch {
                guard case .timedOut = error else { throw error }
                break
            }
        }
        var dialer = N.dialer(F.alice, loop: loop)
        dialer.connectTimeoutMilliseconds = 200
        do {
            _ = try await dialer.dial(F.bob.pubky, host: "127.0.0.1", port: port)
            XCTFail("the connect should not complete")
        } catch {
            XCTAssertEqual(error, .connectTimedOut(address: "127.0.0.1:\(port)", milliseconds: 200))
        }
        for filler in fillers { await filler.close() }
        await finish(loop)
    }

    /// Waits until `listener`'s server holds a connection from `pubky`: the dialler
    /// finishes its handshake a moment before the listener has read message 3.
    private func connection(from pubky: Pubky, at listener: PeerListener) async throws -> PeerConnection {
        for _ in 0..<400 {
            if let found = await listener.server.connections(from: pubky).first { return found }
            try await listener.loop.sleep(milliseconds: 5)
        }
        throw ChannelError.closed
    }

    /// A loopback socket that listens with backlog 0 and is never accepted from.
    private static func listenWithoutAccepting() throws -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LibUVError(call: "socket", code: -errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && listen(fd, 0) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard ok else {
            close(fd)
            throw LibUVError(call: "bind/listen", code: -errno)
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
