import XCTest
@testable import Transport

/// The channel over real loopback TCP, with full-size frames (each spans two socket reads of
/// the loop's 64 KiB buffer, so the decoder joins them) and small ones between them.
final class SecureChannelOverTCPTests: XCTestCase {
    private typealias F = ChannelFixtures

    /// A hostile dialler announces a large frame and then sends its bytes one at a time.
    /// The stream holds them back for the whole frame (`read(atLeast:)`), so the channel's
    /// reader is never woken; the idle timeout must still close the connection, since only
    /// whole messages count as traffic.
    func testADribbledFrameStillReachesTheIdleTimeout() async throws {
        try await withRawDialler(limits: F.fastLimits(idle: 200)) { loop, dialler, bob in
            let dribble = Task {
                // A 40,000-byte frame, announced and never finished.
                try await dialler.stream.write([0x9C, 0x40])
                for _ in 0..<200 {
                    try await dialler.stream.write([0x00])
                    try await loop.sleep(milliseconds: 20)
                }
            }
            do {
                let message = try await bob.receive()
                XCTFail("a dribbled frame gave \(String(describing: message))")
            } catch {
                XCTAssertEqual(error as? ChannelError, .idleTimeout(milliseconds: 200))
            }
            dribble.cancel()
            _ = await dribble.result
        }
    }

    /// Half a frame and then the dialler's end of stream: the bytes held back for the rest
    /// of the frame come out at the end, so the cut is reported, not a clean close.
    func testAFrameCutByTheEndOfStreamIsReportedAsTruncated() async throws {
        try await withRawDialler(limits: F.fastLimits()) { _, dialler, bob in
            let frame = try dialler.seal(testPattern(count: 30_000, seed: 9))
            try await dialler.stream.write(Array(frame[..<15_000]))
            try await dialler.stream.shutdownWrite()
            do {
                let message = try await bob.receive()
                XCTFail("a cut frame gave \(String(describing: message))")
            } catch {
                XCTAssertEqual(error as? ChannelError, .truncatedFrame)
            }
        }
    }

    /// Bob's channel accepted over loopback TCP from a hand-driven dialler.
    private func withRawDialler(
        limits: ChannelLimits, _ body: (EventLoop, RawDialler<TCPConnection>, SecureChannel) async throws -> Void
    ) async throws {
        try await withConnectedPair { loop, client, server in
            async let accepted = SecureChannel.accept(over: server, identity: F.bob, sleeper: loop.sleeper, limits: limits)
            let dialler = try await RawDialler.dial(client, identity: F.alice, expecting: F.bob.pubky, limits: limits)
            let bob = try await accepted
            try await body(loop, dialler, bob)
            await bob.close()
        }
    }

    func testFullSizeFramesArriveWholeAndInOrder() async throws {
        let count = 40
        let loop = try EventLoop()
        let listener = try await TCPListener.bind(loop: loop)
        let limits = F.fastLimits()
        async let accepted: SecureChannel = {
            let accepted = try await listener.accept()
            let stream = try XCTUnwrap(accepted)
            return try await SecureChannel.accept(over: stream, identity: F.bob, sleeper: loop.sleeper, limits: limits)
        }()
        let stream = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port, loop: loop)
        let alice = try await SecureChannel.connect(over: stream, identity: F.alice, expecting: F.bob.pubky,
                                                    sleeper: loop.sleeper, limits: limits)
        let bob = try await accepted
        let messages = (0..<count).map { index in
            testPattern(count: index % 3 == 0 ? 17 : ChannelLimits.wireMessageLimit - index, seed: UInt64(index + 1))
        }
        let reader = Task { () throws -> [[UInt8]] in
            var received: [[UInt8]] = []
            while received.count < count {
                guard let message = try await bob.receive() else { break }
                received.append(message)
            }
            return received
        }
        for message in messages { try await alice.send(message) }
        let received = try await reader.value
        XCTAssertEqual(received.count, count)
        XCTAssertTrue(received == messages, "every message arrives whole and in order")
        await alice.close()
        let end = try await bob.receive()
        XCTAssertNil(end, "a clean close after the last frame")
        await bob.close()
        await listener.close()
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
    }
}
