import CLibUV
import Glibc
import XCTest
@testable import Transport

/// Reads and writes made on the caller's thread (`StreamInbox`, `StreamOutbox`), not the
/// loop's: what must still hold when a write is split between the caller's thread and
/// libuv's queue, and when a parked read races its cancellation or the close.
final class EventLoopOffLoopIOTests: XCTestCase {
    /// Eight writers at once, each of blocks larger than the socket buffer, to a reader
    /// that starts late: most writes are split (the kernel takes part on the writer's
    /// thread, the loop queues the rest), and writes queue behind them. Every block must
    /// arrive whole, never interleaved with another, and each writer's in its order.
    func testConcurrentSplitWritesArriveWholeAndInOrder() async throws {
        try await withConnectedPair { loop, client, server in
            let writers = 8, blocksEach = 40, blockBytes = 100_003
            // Lost or misordered bytes would leave the reader waiting: the close ends it.
            let watchdog = Self.closing(server, afterMilliseconds: 60_000, loop: loop)

            func block(writer: Int, index: Int) -> [UInt8] {
                var bytes = [UInt8](repeating: UInt8(truncatingIfNeeded: writer * 16 + index), count: blockBytes)
                bytes[0] = UInt8(writer)
                bytes[1] = UInt8(index)
                return bytes
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        for index in 0..<blocksEach { try await client.write(block(writer: writer, index: index)) }
                    }
                }
                // A slow reader: the socket buffer fills and frees a little at a time, so
                // queued remainders and fresh writes keep meeting.
                var received: [UInt8] = []
                let total = writers * blocksEach * blockBytes
                while received.count < total {
                    guard let chunk = try await server.read() else { break }
                    received += chunk
                    try await loop.sleep(milliseconds: 1)
                }
                XCTAssertEqual(received.count, total)
                var nextIndex = [Int](repeating: 0, count: writers)
                for start in stride(from: 0, to: received.count, by: blockBytes) {
                    let writer = Int(received[start]), index = Int(received[start + 1])
                    XCTAssertLessThan(writer, writers, "block at \(start) does not start a block")
                    guard writer < writers else { break }
                    XCTAssertEqual(index, nextIndex[writer], "writer \(writer)'s blocks out of order")
                    nextIndex[writer] = index + 1
                    XCTAssertTrue(received[start..<start + blockBytes].elementsEqual(block(writer: writer, index: index)),
                                  "block \(index) of writer \(writer) arrived cut or mixed")
                }
                XCTAssertEqual(nextIndex, [Int](repeating: blocksEach, count: writers))
                try await group.waitForAll()
            }
            watchdog.cancel()
        }
    }

    /// A read cancelled over and over while parked: every cancellation ends its read, and
    /// the bytes sent afterwards reach the next read, none lost.
    func testRepeatedlyCancelledParkedReadsLoseNothing() async throws {
        try await withConnectedPair { loop, client, server in
            // A lost cancellation would leave a read parked for good: closing the stream ends
            // it (with nil, which fails the round) instead of hanging the suite.
            let watchdog = Self.closing(server, afterMilliseconds: 20_000, loop: loop)
            for round in 0..<200 {
                let reader = Task { try await server.read() }
                if round % 2 == 0 { await Task.yield() }
                reader.cancel()
                do {
                    let early = try await reader.value
                    XCTFail("round \(round): a cancelled read returned \(String(describing: early))")
                } catch is CancellationError {
                }
            }
            watchdog.cancel()
            try await client.write([1, 2, 3])
            let bytes = try await readExactly(3, from: server)
            XCTAssertEqual(bytes, [1, 2, 3])
        }
    }

    /// A write from a thread off the loop after the close fails as closed and reaches no
    /// descriptor: the close is ordered with the direct write by the outbox's lock.
    func testWritesAfterOwnCloseFailAsClosed() async throws {
        try await withConnectedPair { loop, client, server in
            try await client.write([9])
            await client.close()
            for _ in 0..<3 {
                do {
                    try await client.write([1])
                    XCTFail("a write after close succeeded")
                } catch let error as ByteStreamError {
                    XCTAssertEqual(error, .closed)
                }
            }
            let sent = try await server.read()
            XCTAssertEqual(sent, [9])
            let end = try await server.read()
            XCTAssertNil(end)
        }
    }

    /// A reader that wants a whole frame is woken once for it: bytes that come short of it
    /// are held back, then handed over together; at the end what was held back still comes
    /// first, then the end.
    func testAReadAtLeastIsWokenOnceForTheWholeAndGetsHeldBytesAtTheEnd() async throws {
        try await withConnectedPair { loop, client, server in
            let reader = Task { try await server.read(atLeast: 10) }
            try await client.write([1, 2, 3])
            try await loop.sleep(milliseconds: 50)
            try await client.write([4, 5, 6, 7])
            try await loop.sleep(milliseconds: 50)
            let early = await server.bufferedByteCount
            XCTAssertEqual(early, 7, "7 of the 10 bytes wanted are held back, the reader not woken")
            try await client.write([8, 9, 10, 11])
            let whole = try await reader.value
            XCTAssertEqual(whole, Array(1...11))

            try await client.write([12, 13])
            try await client.shutdownWrite()
            let rest = try await server.read(atLeast: 100)
            XCTAssertEqual(rest, [12, 13], "held bytes come out at the end of the stream")
            let end = try await server.read(atLeast: 100)
            XCTAssertNil(end)
        }
    }

    /// Reading starts when a connection is accepted or connected, not at its first read:
    /// the peer's first bytes already wait in the inbox, so the first read takes them on
    /// its own thread instead of asking the loop to start reading and waiting to be woken.
    func testReadingStartsBeforeTheFirstReadOnBothEnds() async throws {
        try await withConnectedPair { loop, client, server in
            try await client.write([1, 2, 3])
            try await server.write([4, 5])
            var serverHolds = 0, clientHolds = 0
            for _ in 0..<400 where serverHolds < 3 || clientHolds < 2 {
                try await loop.sleep(milliseconds: 5)
                serverHolds = await server.bufferedByteCount
                clientHolds = await client.bufferedByteCount
            }
            XCTAssertEqual(serverHolds, 3, "the accepted end read ahead before any read")
            XCTAssertEqual(clientHolds, 2, "the connected end read ahead before any read")
            let first = try await server.read()
            XCTAssertEqual(first, [1, 2, 3])
            let reply = try await client.read()
            XCTAssertEqual(reply, [4, 5])
        }
    }

    /// Closing from a pool task crosses to the loop once (to close the handle); the close
    /// callback resumes the closer on the pool. Through the connection's actor it crossed
    /// twice: in to start closing, and in again to finish `close()` after the callback
    /// resumed it on the pool.
    func testClosingFromThePoolCrossesToTheLoopOnce() async throws {
        let loop = try EventLoop()
        let listener = try await TCPListener.bind(host: "127.0.0.1", port: 0, loop: loop)
        var pairs: [(TCPConnection, TCPConnection)] = []
        for _ in 0..<10 {
            let client = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port, loop: loop)
            guard let server = try await listener.accept() else { return XCTFail("listener closed early") }
            pairs.append((client, server))
        }
        try await loop.sleep(milliseconds: 20)
        let before = loop.submittedWork
        for (client, server) in pairs {
            await client.close()
            await server.close()
        }
        XCTAssertEqual(loop.submittedWork - before, 20, "20 closes from the pool")
        await listener.close()
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
    }

    /// Bytes the peer sent before the stream was adopted (the dialler's first handshake
    /// message, waiting when the loop accepts) are in the inbox when adoption returns, in
    /// the same loop turn: the first read takes them without waiting for libuv's next poll
    /// and a wake-up. A unix socket pair makes the order certain: both bytes are written
    /// before the handle exists.
    func testBytesWaitingAtAdoptionAreReadThere() async throws {
        let loop = try EventLoop()
        var ends: [Int32] = [-1, -1]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends), 0)
        XCTAssertEqual(Glibc.write(ends[1], [UInt8(7), 8, 9], 3), 3)
        let ours = ends[0]
        let adopted = Locked<(connection: PipeConnection?, heldAtAdoption: Int)>((nil, -1))
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            loop.execute {
                do {
                    let stream = try PipeConnection.makeHandle(on: loop)
                    let pipe = UVHandle.concrete(stream, as: uv_pipe_t.self)
                    try uvCheck(uv_pipe_open(pipe, ours), "uv_pipe_open")
                    let connection = try PipeConnection.adopt(
                        pipe, path: "socketpair", loop: loop, readBufferLimit: 1 << 16, onClosed: nil)
                    let held = connection.core.bufferedByteCount
                    adopted.withLock { $0 = (connection, held) }
                    done.resume()
                } catch {
                    done.resume(throwing: error)
                }
            }
        }
        XCTAssertEqual(adopted.value.heldAtAdoption, 3, "bytes held when adoption returned")
        let first = try await adopted.value.connection?.read()
        XCTAssertEqual(first, [7, 8, 9])
        await adopted.value.connection?.close()
        close(ends[1])
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
    }

    private static func closing(_ stream: TCPConnection, afterMilliseconds: UInt64, loop: EventLoop) -> Task<Void, Never> {
        Task {
            guard (try? await loop.sleep(milliseconds: afterMilliseconds)) != nil else { return }
            await stream.close()
        }
    }
}
