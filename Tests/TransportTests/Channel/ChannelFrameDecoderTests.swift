import XCTest
@testable import Transport

final class ChannelFrameDecoderTests: XCTestCase {
    private let bodies: [[UInt8]] = [
        [UInt8](repeating: 0xAB, count: 16),
        Array(0..<200).map { UInt8($0) },
        [UInt8](repeating: 0x01, count: 300),
    ]

    private var wire: [UInt8] { bodies.flatMap(Frame.encode) }

    func testFramesSurviveASplitAtEveryByteBoundary() throws {
        let wire = self.wire
        for split in 0...wire.count {
            var decoder = FrameDecoder()
            decoder.feed(Array(wire[..<split]))
            var frames = try decoder.frames()
            decoder.feed(Array(wire[split...]))
            frames += try decoder.frames()
            XCTAssertEqual(frames, bodies, "split at \(split)")
            XCTAssertEqual(decoder.bufferedByteCount, 0)
        }
    }

    func testFramesSurviveOneByteAtATime() throws {
        var decoder = FrameDecoder()
        var frames: [[UInt8]] = []
        for byte in wire {
            decoder.feed([byte])
            frames += try decoder.frames()
        }
        XCTAssertEqual(frames, bodies)
    }

    func testHeaderIsBigEndian() {
        XCTAssertEqual(Array(Frame.encode([UInt8](repeating: 0, count: 0x0102)).prefix(2)), [0x01, 0x02])
    }

    func testZeroLengthFrameIsMalformed() {
        var decoder = FrameDecoder()
        decoder.feed([0, 0])
        XCTAssertThrowsError(try decoder.nextFrame()) { error in
            XCTAssertEqual(error as? ChannelError, .frameTooShort(length: 0, minimum: 16))
        }
    }

    func testFrameShorterThanATagIsMalformed() {
        var decoder = FrameDecoder()
        decoder.feed([0, 15])
        XCTAssertThrowsError(try decoder.nextFrame()) { error in
            XCTAssertEqual(error as? ChannelError, .frameTooShort(length: 15, minimum: 16))
        }
    }

    func testOversizedFrameFailsOnItsHeaderBeforeTheBodyArrives() {
        var decoder = FrameDecoder(maximumLength: 1000)
        decoder.feed([0x03, 0xE9])  // 1001
        XCTAssertThrowsError(try decoder.nextFrame()) { error in
            XCTAssertEqual(error as? ChannelError, .frameTooLarge(length: 1001, limit: 1000))
        }
    }

    func testDecoderStaysFailedAfterAnError() {
        var decoder = FrameDecoder(maximumLength: 100)
        decoder.feed([0xFF, 0xFF])
        XCTAssertThrowsError(try decoder.nextFrame())
        decoder.feed(Frame.encode([UInt8](repeating: 0, count: 20)))
        XCTAssertThrowsError(try decoder.nextFrame())
    }

    func testIncompleteFrameWaitsForMoreBytes() throws {
        var decoder = FrameDecoder()
        decoder.feed([0, 20] + [UInt8](repeating: 7, count: 19))
        XCTAssertNil(try decoder.nextFrame())
        decoder.feed([7])
        XCTAssertEqual(try decoder.nextFrame(), [UInt8](repeating: 7, count: 20))
    }

    func testFuzzEntryTakesArbitraryInput() {
        var generator = SystemRandomNumberGenerator()
        ChannelFuzzTargets.frameDecoder([])
        for _ in 0..<2000 {
            let count = Int.random(in: 0..<300, using: &generator)
            ChannelFuzzTargets.frameDecoder((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
        // Crafted: every header length, split every way the fuzzer's chunking allows.
        for first in UInt8(0)...6 {
            ChannelFuzzTargets.frameDecoder([first, 0, 16] + [UInt8](repeating: 1, count: 16) + [0xFF, 0xFF])
        }
    }
}
