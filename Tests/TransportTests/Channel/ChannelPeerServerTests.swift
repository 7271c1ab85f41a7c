import XCTest
@testable import Transport
import TestSupport

/// Each misbehaviour closes that one connection, is logged with its typed reason, and a
/// well-behaved peer is served before, during and after it.
final class ChannelPeerServerTests: XCTestCase {
    private typealias F = ChannelFixtures
    private typealias P = PeerFixtures

    /// Carol keeps requesting from Bob's server while `misbehave` runs; the server's log
    /// must show `logged`, and Carol must not notice anything.
    private func assertServerSurvives(limits: PeerLimits = PeerLimits(channel: F.fastLimits()),
                                      logged: @escaping (PeerLogEvent) -> Bool,
                                      file: StaticString = #filePath, line: UInt = #line,
                                      _ misbehave: (PeerServer) async throws -> Void) async throws {
        let capture = LogCapture()
        let server = P.server(limits: limits, log: capture.log)
        let carol = try await P.dial(server, as: F.carol, limits: PeerLimits(channel: F.fastLimits()))
        try await P.assertCarolKeepsBeingServed(carol, capture: capture, pause: { try await Task.sleep(nanoseconds: 5_000_000) }, logged: logged,
                                                file: file, line: line) { try await misbehave(server) }
        await server.shutdown()
    }

    func testWrongPubkyIsRefusedAndLoggedOnBothSides() async throws {
        let dialLog = LogCapture()
        try await assertServerSurvives(logged: { $0 == .handshakeFailed(direction: .inbound, error: .notForThisNode) }) { server in
            do {
                _ = try await P.dial(server, as: F.alice, expecting: F.mallory.pubky, log: dialLog.log)
                XCTFail("Bob's server must not pass for Mallory")
            } catch {
                XCTAssertEqual(error as? ChannelError, .wrongRemotePubky(expected: F.mallory.pubky, reached: F.bob.pubky))
            }
        }
        XCTAssertEqual(dialLog.all, [.handshakeFailed(direction: .outbound,
                                                      error: .wrongRemotePubky(expected: F.mallory.pubky, reached: F.bob.pubky))])
    }

    func testInitiatorWithAMismatchedPubkyIsRefused() async throws {
        try await assertServerSurvives(logged: {
            $0 == .handshakeFailed(direction: .inbound, error: .initiatorKeyMismatch(claimed: F.alice.pubky))
        }) { server in
            let stream = await P.rawStream(into: server)
            var noise = try HandshakeState.peernodeInitiator(identity: F.mallory, contact: F.bob.pubky)
            try await stream.write(Frame.encode(try noise.writeMessage(payload: [])))
            let read = try await stream.read()
            let second = try XCTUnwrap(read)
            _ = try noise.readMessage(Array(second.dropFirst(2)))
            try await stream.write(Frame.encode(try noise.writeMessage(payload: F.alice.publicKey)))
            let end = try await stream.read()
            XCTAssertNil(end, "the responder closes")
        }
    }

    func testFlippedCiphertextByteIsClosedAndLogged() async throws {
        try await assertServerSurvives(logged: {
            $0 == .disconnected(peer: F.alice.pubky, direction: .inbound, reason: .failed(.decryptionFailed))
        }) { server in
            let raw = try await RawDialler.dial(await P.rawStream(into: server), identity: F.alice, expecting: F.bob.pubky)
            var frame = try raw.seal(P.request("tampered"))
            frame[frame.count - 1] ^= 0x80
            try await raw.stream.write(frame)
        }
    }

    func testOversizedFrameIsClosedAndLogged() async throws {
        var limits = PeerLimits(channel: F.fastLimits())
        limits.channel.maxFrameLength = 4096
        try await assertServerSurvives(limits: limits, logged: {
            $0 == .disconnected(peer: F.alice.pubky, direction: .inbound,
                                reason: .failed(.frameTooLarge(length: 65535, limit: 4096)))
        }) { server in
            let raw = try await RawDialler.dial(await P.rawStream(into: server), identity: F.alice, expecting: F.bob.pubky)
            try await raw.stream.write([0xFF, 0xFF] + [UInt8](repeating: 0, count: 100))
        }
    }

    func testOversizedMessageIsClosedAndLogged() async throws {
        var limits = PeerLimits(channel: F.fastLimits())
        limits.channel.maxMessageLength = 1000
        try await assertServerSurvives(limits: limits, logged: {
            $0 == .disconnected(peer: F.alice.pubky, direction: .inbound,
                                reason: .failed(.messageTooLarge(size: 1001, limit: 1000)))
        }) { server in
            let raw = try await RawDialler.dial(await P.rawStream(into: server), identity: F.alice, expecting: F.bob.pubky)
            try await raw.stream.write(try raw.seal([UInt8](repeating: 0x20, count: 1001)))
        }
    }

    func testGarbageBeforeTheHandshakeIsClosedAndLogged() async throws {
        try await assertServerSurvives(logged: {
            $0 == .handshakeFailed(direction: .inbound, error: .frameTooLarge(length: 0x4745, limit: ChannelHandshake.maxFrameLength))
        }) { server in
            let stream = await P.rawStream(into: server)
            try await stream.write(F.json("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
        }
    }

    func testStalledHalfHandshakeIsClosedAndLogged() async throws {
        try await assertServerSurvives(limits: PeerLimits(channel: F.fastLimits(handshake: 150)), logged: {
            $0 == .handshakeFailed(direction: .inbound, error: .handshakeTimeout(milliseconds: 150))
        }) { server in
            let stream = await P.rawStream(into: server)
            var noise = try HandshakeState.peernodeInitiator(identity: F.alice, contact: F.bob.pubky)
            try await stream.write(Frame.encode(try noise.writeMessage(payload: [])))
            // ...and never sends message 3; message 2 arrives, then the close.
            let second = try await stream.read()
            XCTAssertEqual(second?.count, 2 + 48)
            let end = try await stream.read()
            XCTAssertNil(end)
        }
    }

    func testIdlePeerIsClosedAndLogged() async throws {
        try await assertServerSurvives(limits: PeerLimits(channel: F.fastLimits(idle: 120)), logged: {
            $0 == .disconnected(peer: F.alice.pubky, direction: .inbound, reason: .failed(.idleTimeout(milliseconds: 120)))
        }) { server in
            let idle = try await P.dial(server, as: F.alice)
            _ = try await idle.request(P.request("once"), id: "once")
            let reason = await idle.waitUntilClosed()
            XCTAssertEqual(reason, .closedByPeer)
        }
    }

    func testPeerOverTheInFlightCapIsClosedAndLogged() async throws {
        var limits = PeerLimits(channel: F.fastLimits())
        limits.maxInFlightRequests = 2
        let capture = LogCapture()
        // Slow handler, so Alice's three requests are in flight together.
        let server = P.server(limits: limits, log: capture.log,
                              handlers: PeerHandlers(onRequest: P.echo(delayMilliseconds: 200)))
        let carol = try await P.dial(server, as: F.carol)
        let alice = try await P.dial(server, as: F.alice)
        async let carolReply = carol.request(P.request("c"), id: "c")
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<3 {
                group.addTask { _ = try? await alice.request(P.request("a\(index)"), id: "a\(index)") }
            }
        }
        let logged = await capture.waitFor {
            $0 == .disconnected(peer: F.alice.pubky, direction: .inbound, reason: .failed(.peerExceededInFlightLimit(limit: 2)))
        }
        XCTAssertTrue(logged, "\(capture.all)")
        let aliceReason = await alice.waitUntilClosed()
        XCTAssertEqual(aliceReason, .closedByPeer)
        let reply = try await carolReply
        XCTAssertEqual(P.requestID(of: reply), "c")
        await server.shutdown()
    }

    func testNonEnvelopeMessageIsClosedAndLogged() async throws {
        try await assertServerSurvives(logged: {
            $0 == .disconnected(peer: F.alice.pubky, direction: .inbound, reason: .failed(.invalidJSON(.trailingData(offset: 12))))
        }) { server in
            let raw = try await RawDialler.dial(await P.rawStream(into: server), identity: F.alice, expecting: F.bob.pubky)
            try await raw.stream.write(try raw.seal(F.json(#"{"type":"x"}, garbage"#)))
        }
    }

    func testAFullHandshakeBudgetEvictsTheStalledHandshake() async throws {
        var limits = PeerLimits(channel: F.fastLimits())
        limits.maxHandshakes = 1
        // Carol is authenticated, so she is not in the handshake budget; a stalled handshake
        // fills it, and the next connection evicts it rather than being refused.
        try await assertServerSurvives(limits: limits, logged: {
            $0 == .evicted(host: nil, peer: nil, budget: .handshakes)
        }) { server in
            // Carol's dial returns once she sent message 3; wait until the server has read it.
            try await Self.waitUntil { await server.handshakeCount == 0 }
            let stalled = await P.rawStream(into: server)
            let newcomer = await P.rawStream(into: server)
            let end = try await stalled.read()
            XCTAssertNil(end, "the stalled handshake is closed for the newcomer")
            let handshakes = await server.handshakeCount
            XCTAssertEqual(handshakes, 1)
            let counters = await server.counters
            XCTAssertEqual(counters.evicted[.handshakes], 1)
            XCTAssertEqual(counters.handshakesFailed, 0, "an eviction is not a failed handshake")
            await newcomer.close()
        }
    }

    /// `handOver` (the TCP listener's way in, which does not wait for the server) keeps the
    /// order of arrival: with room for one handshake, the second connection evicts the
    /// first, never the other way round. After the shutdown a handed-over one is closed.
    func testHandedOverConnectionsAreTakenInOrderAndClosedAfterTheShutdown() async throws {
        var limits = PeerLimits(channel: F.fastLimits())
        limits.maxHandshakes = 1
        let server = P.server(limits: limits)
        for round in 0..<20 {
            // The last round's second connection, closed mid-handshake, is counted by now.
            let failedBefore = await server.counters.handshakesFailed
            let (first, firstEnd) = MemoryByteStream.pair()
            let (second, secondEnd) = MemoryByteStream.pair()
            server.handOver(firstEnd)
            server.handOver(secondEnd)
            let end = try await first.read()
            XCTAssertNil(end, "round \(round): the first arrival is the stalled one the second evicts")
            try await Self.waitUntil { await server.counters.evicted[.handshakes] == round + 1 }
            let counters = await server.counters
            XCTAssertEqual(counters.evicted[.handshakes], round + 1, "round \(round)")
            // Taken the other way round, the first would end only at its handshake deadline.
            XCTAssertEqual(counters.handshakesFailed, failedBefore, "round \(round): no handshake timed out")
            await second.close()
            try await Self.waitUntil { await server.handshakeCount == 0 }
        }
        await server.shutdown()
        let (late, lateEnd) = MemoryByteStream.pair()
        server.handOver(lateEnd)
        let lateRead = try await late.read()
        XCTAssertNil(lateRead, "a connection handed over after the shutdown is closed")
    }

    func testAPubkyOverItsShareIsRefusedAfterTheHandshake() async throws {
        var limits = PeerLimits(channel: F.fastLimits())
        limits.maxConnectionsPerPubky = 1
        try await assertServerSurvives(limits: limits, logged: {
            $0 == .inboundRefused(host: nil, peer: F.carol.pubky,
                                  refusal: ConnectionRefusal(budget: .connectionsPerPubky, limit: 1))
        }) { server in
            try await Self.waitUntil { await server.handshakeCount == 0 }
            let second = try await P.dial(server, as: F.carol)
            let reason = await second.waitUntilClosed()
            XCTAssertEqual(reason, .closedByPeer)
        }
    }

    func testAFullPeerBudgetEvictsAnUnprotectedPeer() async throws {
        var limits = PeerLimits(channel: F.fastLimits())
        limits.maxInboundConnections = 2
        limits.evictionProtectLongestConnected = 1
        limits.evictionProtectLowestLatency = 0
        // Carol is the longest connected (protected); Alice holds the other slot and is
        // evicted when Dave arrives.
        try await assertServerSurvives(limits: limits, logged: {
            $0 == .evicted(host: nil, peer: F.alice.pubky, budget: .peers)
        }) { server in
            try await Self.waitUntil { await server.handshakeCount == 0 }
            let alice = try await P.dial(server, as: F.alice)
            try await Self.waitUntil { await server.handshakeCount == 0 }
            let dave = try await P.dial(server, as: F.identity(77))
            let reason = await alice.waitUntilClosed()
            XCTAssertEqual(reason, .closedByPeer)
            let reply = try await dave.request(P.request("dave"), id: "dave")
            XCTAssertEqual(P.requestID(of: reply), "dave")
            await dave.close()
        }
    }

    func testProtectedPeersAreKeptAndTheNewcomerRefused() async throws {
        var limits = PeerLimits(channel: F.fastLimits())
        limits.maxInboundConnections = 1
        limits.evictionProtectLongestConnected = 0
        limits.evictionProtectLowestLatency = 0
        let capture = LogCapture()
        let server = PeerServer(identity: F.bob, sleeper: TaskSleeper(), limits: limits, log: capture.log,
                                handlers: PeerHandlers(onRequest: P.echo()), isProtected: { $0 == F.carol.pubky })
        let carol = try await P.dial(server, as: F.carol)
        try await Self.waitUntil { await server.handshakeCount == 0 }
        let alice = try await P.dial(server, as: F.alice)
        let reason = await alice.waitUntilClosed()
        XCTAssertEqual(reason, .closedByPeer)
        let reply = try await carol.request(P.request("kept"), id: "kept")
        XCTAssertEqual(P.requestID(of: reply), "kept")
        XCTAssertTrue(capture.all.contains(.inboundRefused(host: nil, peer: F.alice.pubky,
                                                           refusal: ConnectionRefusal(budget: .peers, limit: 1))))
        await carol.close()
        await server.shutdown()
    }

    private static func waitUntil(_ condition: () async -> Bool) async throws {
        for _ in 0..<400 where await !condition() {
            try await Task.sleep(nanoseconds: 5_000_000)
        }
    }

    func testManyPeersAreServedAtOnce() async throws {
        let server = P.server(handlers: PeerHandlers(onRequest: P.echo(delayMilliseconds: 5)))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask {
                    let client = try await P.dial(server, as: F.identity(UInt8(100 + index)))
                    let reply = try await client.request(P.request("r\(index)"), id: "r\(index)")
                    XCTAssertEqual(P.requestID(of: reply), "r\(index)")
                    await client.close()
                }
            }
            try await group.waitForAll()
        }
        await server.shutdown()
        let remaining = await server.connectionCount
        XCTAssertEqual(remaining, 0)
    }
}
