import TestSupport
import XCTest
@testable import Transport

/// The channel over in-memory streams: the same code runs over TCP.
final class SecureChannelTests: XCTestCase {
    private typealias F = ChannelFixtures

    func testMessagesFlowBothWays() async throws {
        let (alice, bob) = try await F.channelPair()
        XCTAssertEqual(alice.remotePubky, F.bob.pubky)
        XCTAssertEqual(bob.remotePubky, F.alice.pubky)
        try await alice.send(F.json("ping"))
        let atBob = try await bob.receive()
        XCTAssertEqual(F.text(atBob), "ping")
        let largest = [UInt8](repeating: 0x7A, count: ChannelLimits.wireMessageLimit)
        try await bob.send(largest)
        try await bob.send(F.json("pong"))
        let first = try await alice.receive()
        let second = try await alice.receive()
        XCTAssertEqual(first, largest)
        XCTAssertEqual(F.text(second), "pong")
    }

    func testConcurrentSendsArriveWholeAndDecrypt() async throws {
        let (alice, bob) = try await F.channelPair()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<50 {
                group.addTask { try? await alice.send(F.json("message \(index)")) }
            }
        }
        var received: Set<String> = []
        for _ in 0..<50 {
            let message = try await bob.receive()
            received.insert(F.text(message) ?? "")
        }
        XCTAssertEqual(received, Set((0..<50).map { "message \($0)" }))
    }

    func testTooLargeMessageIsRefusedAndTheChannelStaysOpen() async throws {
        let (alice, bob) = try await F.channelPair()
        do {
            try await alice.send([UInt8](repeating: 0, count: ChannelLimits.wireMessageLimit + 1))
            XCTFail("a message over 65519 bytes must be refused")
        } catch {
            XCTAssertEqual(error, .messageTooLarge(size: 65520, limit: 65519))
        }
        try await alice.send(F.json("still open"))
        let message = try await bob.receive()
        XCTAssertEqual(F.text(message), "still open")
    }

    func testWrongPubkyIsRefusedWithAnErrorNamingBothKeys() async throws {
        let (a, b) = MemoryByteStream.pair()
        async let accepted = SecureChannel.accept(over: b, identity: F.carol, sleeper: TaskSleeper(), limits: F.fastLimits())
        do {
            _ = try await SecureChannel.connect(over: a, identity: F.alice, expecting: F.bob.pubky,
                                                sleeper: TaskSleeper(), limits: F.fastLimits())
            XCTFail("Carol must not pass for Bob")
        } catch {
            XCTAssertEqual(error, .wrongRemotePubky(expected: F.bob.pubky, reached: F.carol.pubky))
            XCTAssertTrue(error.description.contains(F.bob.pubky.z32))
            XCTAssertTrue(error.description.contains(F.carol.pubky.z32))
        }
        do {
            _ = try await accepted
            XCTFail("the responder must refuse too")
        } catch {
            XCTAssertEqual(error as? ChannelError, .notForThisNode)
        }
    }

    func testFlippedCiphertextByteClosesTheChannel() async throws {
        let (a, b) = MemoryByteStream.pair()
        async let accepted = SecureChannel.accept(over: b, identity: F.bob, sleeper: TaskSleeper(), limits: F.fastLimits())
        let raw = try await RawDialler.dial(a, identity: F.alice, expecting: F.bob.pubky)
        let bob = try await accepted
        var frame = try raw.seal(F.json(#"{"type":"x"}"#))
        frame[5] ^= 0x01
        try await raw.stream.write(frame)
        do {
            _ = try await bob.receive()
            XCTFail("a tampered frame must not be delivered")
        } catch {
            XCTAssertEqual(error, .decryptionFailed)
        }
        let end = try await raw.stream.read()
        XCTAssertNil(end, "the tampered-with side sees the connection closed")
        let reason = await bob.closeReason
        XCTAssertEqual(reason, .decryptionFailed)
    }

    func testOversizedFrameClosesTheChannel() async throws {
        var limits = F.fastLimits()
        limits.maxFrameLength = 1024
        let (a, b) = MemoryByteStream.pair()
        async let accepted = SecureChannel.accept(over: b, identity: F.bob, sleeper: TaskSleeper(), limits: limits)
        let raw = try await RawDialler.dial(a, identity: F.alice, expecting: F.bob.pubky)
        let bob = try await accepted
        try await raw.stream.write([0x08, 0x00])
        do {
            _ = try await bob.receive()
            XCTFail("an oversized frame must close the channel")
        } catch {
            XCTAssertEqual(error, .frameTooLarge(length: 2048, limit: 1024))
        }
    }

    func testFrameCutShortByTheEndOfStreamIsReported() async throws {
        let (a, b) = MemoryByteStream.pair()
        async let accepted = SecureChannel.accept(over: b, identity: F.bob, sleeper: TaskSleeper(), limits: F.fastLimits())
        let raw = try await RawDialler.dial(a, identity: F.alice, expecting: F.bob.pubky)
        let bob = try await accepted
        let frame = try raw.seal(F.json("cut"))
        try await raw.stream.write(Array(frame.prefix(10)))
        await raw.stream.close()
        do {
            _ = try await bob.receive()
            XCTFail("a half frame then EOF is not a clean close")
        } catch {
            XCTAssertEqual(error, .truncatedFrame)
        }
    }

    func testGarbageBeforeTheHandshakeCloses() async throws {
        let (a, b) = MemoryByteStream.pair()
        async let accepted = SecureChannel.accept(over: b, identity: F.bob, sleeper: TaskSleeper(), limits: F.fastLimits())
        try await a.write(F.json("SSH-2.0-OpenSSH_9.6\r\n"))
        do {
            _ = try await accepted
            XCTFail("garbage must not pass as a handshake")
        } catch {
            XCTAssertEqual(error as? ChannelError, .frameTooLarge(length: 0x5353, limit: ChannelHandshake.maxFrameLength))
        }
        let end = try await a.read()
        XCTAssertNil(end)
    }

    func testStalledHalfHandshakeIsClosedByTheTimeout() async throws {
        let (a, b) = MemoryByteStream.pair()
        async let accepted = SecureChannel.accept(over: b, identity: F.bob, sleeper: TaskSleeper(),
                                                  limits: F.fastLimits(handshake: 100))
        // Message 1 only, then silence.
        var noise = try HandshakeState.peernodeInitiator(identity: F.alice, contact: F.bob.pubky)
        try await a.write(Frame.encode(try noise.writeMessage(payload: [])))
        do {
            _ = try await accepted
            XCTFail("a stalled handshake must time out")
        } catch {
            XCTAssertEqual(error as? ChannelError, .handshakeTimeout(milliseconds: 100))
        }
    }

    func testDiallerGivesUpOnASilentListener() async throws {
        let (a, listener) = MemoryByteStream.pair()
        defer { withExtendedLifetime(listener) {} }
        do {
            _ = try await SecureChannel.connect(over: a, identity: F.alice, expecting: F.bob.pubky,
                                                sleeper: TaskSleeper(), limits: F.fastLimits(handshake: 80))
            XCTFail("a silent listener must time out")
        } catch {
            XCTAssertEqual(error, .handshakeTimeout(milliseconds: 80))
        }
    }

    func testIdleChannelIsClosed() async throws {
        // Only Alice's timer is short, so it is hers that fires.
        let (alice, bob) = try await F.channelPair(limits: F.fastLimits(idle: 100), responderLimits: F.fastLimits(idle: 5000))
        do {
            _ = try await alice.receive()
            XCTFail("an idle channel must close")
        } catch {
            XCTAssertEqual(error, .idleTimeout(milliseconds: 100))
        }
        let atBob = try await bob.receive()
        XCTAssertNil(atBob, "the other side sees the connection closed")
    }

    func testTrafficKeepsTheChannelOpen() async throws {
        let (alice, bob) = try await F.channelPair(limits: F.fastLimits(idle: 300))
        for index in 0..<8 {
            try await alice.send(F.json("tick \(index)"))
            let tick = try await bob.receive()
            XCTAssertEqual(F.text(tick), "tick \(index)")
            try await Task.sleep(nanoseconds: 40_000_000)
        }
        let aliceReason = await alice.closeReason
        XCTAssertNil(aliceReason)
    }

    func testChannelClosesCleanlyBeforeNonceExhaustion() async throws {
        let (alice, bob) = try await F.channelPair()
        let last = ChannelSession.nonceLimit - 1
        await alice.setNoncesForTesting(sending: last, receiving: 0)
        await bob.setNoncesForTesting(sending: 0, receiving: last)
        try await alice.send(F.json("last one"))
        let message = try await bob.receive()
        XCTAssertEqual(F.text(message), "last one")
        do {
            try await alice.send(F.json("one too many"))
            XCTFail("the nonce 2^64 - 2 must never be used")
        } catch {
            XCTAssertEqual(error, .nonceLimitReached)
        }
        let end = try await bob.receive()
        XCTAssertNil(end, "the peer sees a clean close")
    }

    func testLocalCloseEndsAPendingReceive() async throws {
        let (alice, bob) = try await F.channelPair()
        async let pending = alice.receive()
        try await Task.sleep(nanoseconds: 10_000_000)
        await alice.close()
        let ended = try await pending
        XCTAssertNil(ended)
        let atBob = try await bob.receive()
        XCTAssertNil(atBob)
        do {
            try await alice.send(F.json("after close"))
            XCTFail("send after close must fail")
        } catch {
            XCTAssertEqual(error, .closed)
        }
    }
}

/// Regression: a frame that arrives in the same read as handshake message 3 sits in the
/// session's decoder; `receive` must hand it out without waiting for more bytes.
final class SecureChannelCoalescedFirstFrameTests: XCTestCase {
    private typealias F = ChannelFixtures

    func testFrameInTheSameReadAsMessage3IsDelivered() async throws {
        let (a, b) = MemoryByteStream.pair()
        // Without the fix the frame waits for more bytes that never come, and the idle
        // timeout (2 s here) closes the channel instead of delivering it.
        async let accepted = SecureChannel.accept(over: b, identity: F.bob, sleeper: TaskSleeper(),
                                                  limits: F.fastLimits(idle: 2000))
        _ = try await RawDialler.dial(a, identity: F.alice, expecting: F.bob.pubky, firstMessage: F.json("first"))
        let responder = try await accepted
        let first = try await responder.receive()
        XCTAssertEqual(F.text(first), "first")
        await responder.close()
    }
}
