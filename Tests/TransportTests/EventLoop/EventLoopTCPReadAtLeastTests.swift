import XCTest
@testable import Transport

/// `read(atLeast:)`: the reader is woken once the bytes it asked for are in, not per chunk,
/// and an end of stream still hands over what did arrive before reading as nil.
final class EventLoopTCPReadAtLeastTests: XCTestCase {
    private func connectedPair(loop: EventLoop) async throws -> (TCPConnection, TCPConnection, TCPListener) {
        let listener = try await TCPListener.bind(loop: loop)
        let client = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port, loop: loop)
        let accepted = try await listener.accept()
        let server = try XCTUnwrap(accepted)
        return (client, server, listener)
    }

    func testWaitsForTheWholeCountAcrossSeparateWrites() async throws {
        let loop = try EventLoop()
        let (client, server, listener) = try await connectedPair(loop: loop)
        let reading = Task { try await server.read(atLeast: 10) }
        try await client.write([1, 2, 3, 4])
        // Long enough for the four bytes to arrive: a plain read would have returned them.
        try await loop.sleep(milliseconds: 50)
        try await client.write([5, 6, 7, 8, 9, 10, 11])
        let got = try await reading.value
        XCTAssertEqual(got, Array(1...11), "one wake-up with every byte, in order")
        await client.close()
        await server.close()
        await listener.close()
        await loop.shutdown()
    }

    func testAlreadyBufferedBytesAreReturnedWhenEnough() async throws {
        let loop = try EventLoop()
        let (client, server, listener) = try await connectedPair(loop: loop)
        try await client.write([9, 8, 7])
        let first = try await server.read(atLeast: 1)
        XCTAssertEqual(first?.isEmpty, false)
        var all = first ?? []
        while all.count < 3 { all += try await server.read() ?? [] }
        XCTAssertEqual(all, [9, 8, 7])
        await client.close()
        await server.close()
        await listener.close()
        await loop.shutdown()
    }

    func testEndOfStreamGivesTheShortRemainderThenNil() async throws {
        let loop = try EventLoop()
        let (client, server, listener) = try await connectedPair(loop: loop)
        let reading = Task { try await server.read(atLeast: 100) }
        try await client.write([1, 2, 3])
        try await loop.sleep(milliseconds: 30)
        await client.close()
        let short = try await reading.value
        XCTAssertEqual(short, [1, 2, 3], "what arrived before the end is not lost")
        let end = try await server.read(atLeast: 100)
        XCTAssertNil(end)
        await server.close()
        await listener.close()
        await loop.shutdown()
    }

    func testACountOverTheReadAheadLimitIsCappedNotAHang() async throws {
        let loop = try EventLoop()
        let limit = 4096
        let listener = try await TCPListener.bind(readBufferLimit: limit, loop: loop)
        let client = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port, loop: loop)
        let accepted = try await listener.accept()
        let server = try XCTUnwrap(accepted)
        let payload = testPattern(count: 3 * limit, seed: 3)
        let writer = Task { try await client.write(payload) }
        let first = try await server.read(atLeast: 1 << 20)
        let chunk = try XCTUnwrap(first)
        XCTAssertGreaterThanOrEqual(chunk.count, limit, "waited up to the limit")
        var received = chunk
        while received.count < payload.count { received += try await server.read() ?? [] }
        try await writer.value
        XCTAssertTrue(received == payload)
        await client.close()
        await server.close()
        await listener.close()
        await loop.shutdown()
    }
}
