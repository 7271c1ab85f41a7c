import XCTest
@testable import Transport

final class MemoryByteStreamTests: XCTestCase {
    func testBytesArriveInOrderBothWays() async throws {
        let (a, b) = MemoryByteStream.pair()
        try await a.write([1, 2])
        try await a.write([3])
        let first = try await b.read()
        let second = try await b.read()
        XCTAssertEqual(first, [1, 2])
        XCTAssertEqual(second, [3])
        async let reply = a.read()
        try await b.write([9])
        let echoed = try await reply
        XCTAssertEqual(echoed, [9])
    }

    func testCloseEndsPendingReadsAndRefusesWrites() async throws {
        let (a, b) = MemoryByteStream.pair()
        async let pending = b.read()
        await a.close()
        let ended = try await pending
        XCTAssertNil(ended)
        do {
            try await b.write([1])
            XCTFail("write after the peer closed must fail")
        } catch let error as ByteStreamError {
            XCTAssertEqual(error, .closed)
        }
    }

    func testBufferedBytesAreReadBeforeTheEnd() async throws {
        let (a, b) = MemoryByteStream.pair()
        try await a.write([7])
        await a.close()
        let buffered = try await b.read()
        let end = try await b.read()
        XCTAssertEqual(buffered, [7])
        XCTAssertNil(end)
    }
}
