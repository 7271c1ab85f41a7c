import XCTest
@testable import Transport

/// The channel over real loopback TCP, with full-size frames (each spans two socket reads of
/// the loop's 64 KiB buffer, so the decoder joins them) and small ones between them.
final class SecureChannelOverTCPTests: XCTestCase {
    private typealias F = ChannelFixtures

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
