import XCTest
@testable import Transport

/// Over real TCP: each misbehaving socket is closed and logged with its typed reason, while
/// a well-behaved peer dialled through `PeerDialer` keeps being served before, during and
/// after it.
final class NetPeerMisbehaviourTests: XCTestCase {
    private typealias F = ChannelFixtures
    private typealias P = PeerFixtures
    private typealias N = NetFixtures

    /// Carol keeps requesting from Bob's listener while `misbehave` runs; Bob's log must
    /// show `logged`, and Carol must notice nothing.
    private func assertListenerSurvives(limits: PeerLimits = N.limits(),
                                        logged: @escaping (PeerLogEvent) -> Bool,
                                        file: StaticString = #filePath, line: UInt = #line,
                                        _ misbehave: (PeerListener) async throws -> Void) async throws {
        let loop = try makeLoop()
        let capture = LogCapture()
        let bob = try await N.node(F.bob, loop: loop, limits: limits, log: capture.log)
        let carol = try await N.dialer(F.carol, loop: loop).dial(F.bob.pubky, host: "127.0.0.1", port: bob.port)
        try await P.assertCarolKeepsBeingServed(carol, capture: capture, pause: { try await loop.sleep(milliseconds: 5) }, logged: logged,
                                                file: file, line: line) { try await misbehave(bob) }
        await carol.close()
        await bob.close()
        await finish(loop, file: file, line: line)
    }

    func testFlippedCiphertextByteClosesTheConnection() async throws {
        try await assertListenerSurvives(logged: {
            $0 == .disconnected(peer: F.alice.pubky, direction: .inbound, reason: .failed(.decryptionFailed))
        }) { bob in
            let raw = try await NetRawDialler.dial(bob, identity: F.alice)
            // A good frame first: the session works until the tampering.
            try await raw.stream.write(try raw.seal(P.request("fine")))
            let reply = try await raw.stream.read()
            XCTAssertEqual(try raw.open(try XCTUnwrap(reply)).map(P.requestID(of:)), ["fine"])
            var frame = try raw.seal(P.request("tampered"))
            frame[frame.count - 1] ^= 0x80
            try await raw.stream.write(frame)
            try await raw.readUntilClosed()
            await raw.stream.close()
        }
    }

    func testOversizedFrameIsClosedAndLogged() async throws {
        var limits = N.limits()
        limits.channel.maxFrameLength = 4096
        try await assertListenerSurvives(limits: limits, logged: {
            $0 == .disconnected(peer: F.alice.pubky, direction: .inbound,
                                reason: .failed(.frameTooLarge(length: 65535, limit: 4096)))
        }) { bob in
            let raw = try await NetRawDialler.dial(bob, identity: F.alice)
            try await raw.stream.write([0xFF, 0xFF] + [UInt8](repeating: 0, count: 100))
            try await raw.readUntilClosed()
            await raw.stream.close()
        }
    }

    func testGarbageBeforeTheHandshakeIsClosedAndLogged() async throws {
        try await assertListenerSurvives(logged: {
            $0 == .handshakeFailed(direction: .inbound,
                                   error: .frameTooLarge(length: 0x4745, limit: ChannelHandshake.maxFrameLength))
        }) { bob in
            let stream = try await N.rawConnection(to: bob)
            try await stream.write(F.json("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
            let end = try await stream.read()
            XCTAssertNil(end, "the listener closes without answering")
            await stream.close()
        }
    }

    func testStalledHalfHandshakeIsClosedAndLogged() async throws {
        try await assertListenerSurvives(limits: N.limits(handshake: 150), logged: {
            $0 == .handshakeFailed(direction: .inbound, error: .handshakeTimeout(milliseconds: 150))
        }) { bob in
            let stream = try await N.rawConnection(to: bob)
            var noise = try HandshakeState.peernodeInitiator(identity: F.alice, contact: F.bob.pubky)
            try await stream.write(Frame.encode(try noise.writeMessage(payload: [])))
            // Message 2 arrives; message 3 is never sent, so the listener's timer closes.
            let second = try await readExactly(2 + 48, from: stream)
            XCTAssertEqual(second.count, 2 + 48)
            let end = try await stream.read()
            XCTAssertNil(end)
            await stream.close()
        }
    }

    func testHandshakesOverTheHostCapAreRefusedAndLogged() async throws {
        // Carol is served from 127.0.0.1; a stalled handshake from there holds its host's
        // one handshake slot, so the next is refused by the server (not silently by the TCP
        // listener) and the refusal logged.
        var limits = N.limits()
        limits.maxHandshakesPerHost = 1
        let refusal = ConnectionRefusal(budget: .handshakesPerHost, limit: 1)
        try await assertListenerSurvives(limits: limits, logged: {
            $0 == .inboundRefused(host: PeerHost("127.0.0.1"), peer: nil, refusal: refusal)
        }) { bob in
            // Carol's dial returns once she sent message 3; wait until the server has read it.
            var waited = 0
            while await bob.server.handshakeCount > 0, waited < 400 {
                try await bob.loop.sleep(milliseconds: 5)
                waited += 1
            }
            let stalled = try await N.rawConnection(to: bob)
            waited = 0
            while await bob.server.handshakeCount < 1, waited < 400 {
                try await bob.loop.sleep(milliseconds: 5)
                waited += 1
            }
            let refused = try await N.rawConnection(to: bob)
            var received: [UInt8] = []
            while let bytes = try await refused.read() { received += bytes }
            XCTAssertEqual(received, Frame.encode(ChannelHandshake.busyMessage),
                           "the connection over the cap is told it is full, and closed at once")
            await refused.close()
            await stalled.close()
            let counters = await bob.server.counters
            XCTAssertEqual(counters.refused[.handshakesPerHost], 1)
        }
    }

    func testOneNetworkGroupIsCappedWhileAnotherGetsIn() async throws {
        // Four hosts of 127.0.0.0/24 fill their group's budget with silent handshakes; a
        // fifth host of that /24 is refused, while 127.1.0.1 (another group) is served.
        let loop = try makeLoop()
        let capture = LogCapture()
        var limits = N.limits(handshake: 10_000)
        limits.maxConnectionsPerNetworkGroup = 4
        let bob = try await N.node(F.bob, loop: loop, limits: limits, log: capture.log)
        var silent: [TCPConnection] = []
        for index in 2...5 {
            silent.append(try await N.rawConnection(to: bob, from: "127.0.0.\(index)"))
        }
        var waited = 0
        while await bob.server.handshakeCount < 4, waited < 400 {
            try await loop.sleep(milliseconds: 5)
            waited += 1
        }
        // The fifth host's dial fails with "full, try later", not "not the node dialled".
        do {
            let refused = try await N.rawConnection(to: bob, from: "127.0.0.6")
            let channel = try await SecureChannel.connect(over: refused, identity: F.carol, expecting: F.bob.pubky,
                                                          sleeper: loop.sleeper, limits: limits.channel)
            await channel.close()
            XCTFail("the fifth host of the /24 must be refused")
        } catch {
            XCTAssertEqual(error as? ChannelError, .listenerBusy)
        }
        XCTAssertTrue(capture.all.contains(.inboundRefused(
            host: PeerHost("127.0.0.6"), peer: nil,
            refusal: ConnectionRefusal(budget: .connectionsPerNetworkGroup, limit: 4))))

        let raw = try await NetRawDialler.dial(try await N.rawConnection(to: bob, from: "127.1.0.1"), identity: F.alice,
                                               expecting: F.bob.pubky)
        try await raw.stream.write(try raw.seal(P.request("other-group")))
        let reply = try await raw.stream.read()
        XCTAssertEqual(try raw.open(try XCTUnwrap(reply)).map(P.requestID(of:)), ["other-group"])
        await raw.stream.close()

        let counters = await bob.server.counters
        XCTAssertEqual(counters.refused[.connectionsPerNetworkGroup], 1)
        for stream in silent { await stream.close() }
        await bob.close()
        await finish(loop)
    }

    /// A peer that keeps within its in-flight allowance but never reads its replies: once
    /// the replies it leaves unread fill the sockets' buffers and stop being written, the
    /// next request closes it, before the listener holds more than twice its allowance.
    func testAPeerThatAsksButNeverReadsIsClosedOnceItsRepliesPileUp() async throws {
        let loop = try makeLoop()
        var limits = N.limits(idle: 60_000)
        // Room for a few requests handled at once on a loaded machine: only the unread
        // replies should close this peer, not a burst of handlers that have not finished.
        limits.maxInFlightRequests = 8
        let capture = LogCapture()
        let padding = String(repeating: "x", count: 32_000)
        let bob = try await N.node(F.bob, loop: loop, limits: limits, log: capture.log,
                                   handlers: PeerHandlers(onRequest: { request, _ in
                                       F.json(#"{"type":"Echo","request_id":"\#(P.requestID(of: request) ?? "?")","pad":"\#(padding)"}"#)
                                   }))
        let isTheVerdict: (PeerLogEvent) -> Bool = {
            guard case .disconnected(peer: F.alice.pubky, direction: .inbound,
                                     reason: .failed(.peerNotReadingReplies(let unwritten))) = $0 else { return false }
            return unwritten > 0 && unwritten <= 2 * limits.maxInFlightRequests
        }
        let raw = try await NetRawDialler.dial(bob, identity: F.alice)
        // One request every 2 ms, each long after its handler returned: the handlers stay
        // far below their limit, so only the unread replies can close the connection.
        var sent = 0
        while sent < 5_000, !capture.all.contains(where: isTheVerdict) {
            do {
                try await raw.stream.write(try raw.seal(P.request("r\(sent)")))
            } catch {
                break
            }
            sent += 1
            try await loop.sleep(milliseconds: 2)
        }
        let logged = await capture.waitFor(isTheVerdict)
        XCTAssertTrue(logged, "after \(sent) requests: \(capture.all.suffix(3))")
        XCTAssertGreaterThan(sent, 20, "the sockets' buffers hold many replies before a write waits")
        await raw.stream.close()
        await bob.close()
        await finish(loop)
    }
}
