import XCTest
@testable import Transport

/// The responder-side read splitter that keeps handshake message 3 in a read of its own.
final class NetHandshakeAlignedStreamTests: XCTestCase {
    private func frame(_ length: Int, fill: UInt8) -> [UInt8] {
        [UInt8(length >> 8), UInt8(length & 0xFF)] + [UInt8](repeating: fill, count: length)
    }

    func testReadsEndAtTheFirstFramesThenPassThrough() async throws {
        let loop = try makeLoop()
        let (near, far) = MemoryByteStream.pair()
        let aligned = HandshakeAlignedStream(far, alignedFrames: 2, loop: loop)
        let one = frame(3, fill: 1), two = frame(5, fill: 2), three = frame(4, fill: 3), four = frame(2, fill: 4)
        try await near.write(one + two + three + four)
        let first = try await aligned.read()
        let second = try await aligned.read()
        let rest = try await aligned.read()
        XCTAssertEqual(first, one)
        XCTAssertEqual(second, two)
        XCTAssertEqual(rest, three + four, "after the aligned frames, reads are not split")
        await aligned.close()
        await near.close()
        await finish(loop)
    }

    func testPartialFramesAreReturnedAsTheyArrive() async throws {
        let loop = try makeLoop()
        let (near, far) = MemoryByteStream.pair()
        let aligned = HandshakeAlignedStream(far, alignedFrames: 1, loop: loop)
        let whole = frame(6, fill: 9)
        // The header split in two, then the body and the next bytes together.
        try await near.write([whole[0]])
        let a = try await aligned.read()
        try await near.write(Array(whole[1..<4]))
        let b = try await aligned.read()
        try await near.write(Array(whole[4...]) + [0xAB, 0xCD])
        let c = try await aligned.read()
        let d = try await aligned.read()
        XCTAssertEqual(a, [whole[0]])
        XCTAssertEqual(b, Array(whole[1..<4]))
        XCTAssertEqual(c, Array(whole[4...]))
        XCTAssertEqual(d, [0xAB, 0xCD])
        await near.close()
        let end = try await aligned.read()
        XCTAssertNil(end)
        await aligned.close()
        await finish(loop)
    }

    /// Garbage announcing a huge frame is handed on at once, not held back waiting for
    /// that many bytes, so the handshake fails on it as it would without the splitter.
    func testGarbageIsNotHeldBack() async throws {
        let loop = try makeLoop()
        let (near, far) = MemoryByteStream.pair()
        let aligned = HandshakeAlignedStream(far, alignedFrames: 2, loop: loop)
        let garbage = Array("GET / HTTP/1.1\r\n\r\n".utf8)
        try await near.write(garbage)
        let read = try await aligned.read()
        XCTAssertEqual(read, garbage)
        await aligned.close()
        await near.close()
        await finish(loop)
    }
}
