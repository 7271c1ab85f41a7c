import XCTest
@testable import Transport

final class EventLoopTCPListenerTests: XCTestCase {
    /// Waits (on loop timers) until `condition` holds, for at most about two seconds.
    private func eventually(_ loop: EventLoop, _ condition: () async -> Bool) async throws -> Bool {
        for _ in 0..<400 {
            if await condition() { return true }
            try await loop.sleep(milliseconds: 5)
        }
        return await condition()
    }

    func testConnectionsPastTheLimitAreClosedWhileOthersKeepWorking() async throws {
        let loop = try EventLoop()
        let server = try await EchoServer.start(maxConnections: 2, loop: loop)
        let first = try await TCPConnection.connect(host: "127.0.0.1", port: server.port, loop: loop)
        let second = try await TCPConnection.connect(host: "127.0.0.1", port: server.port, loop: loop)
        let activeTwo = try await eventually(loop) { await server.listener.activeConnections == 2 }
        XCTAssertTrue(activeTwo)

        // The kernel completes the handshake, then the listener closes it at once.
        let extra = try await TCPConnection.connect(host: "127.0.0.1", port: server.port, loop: loop)
        do {
            let end = try await extra.read()
            XCTAssertNil(end, "the extra connection is closed without data")
        } catch let error as LibUVError {
            XCTAssertTrue(error.isConnectionReset, error.description)
        }
        let refused = await server.listener.refusedConnections
        XCTAssertEqual(refused, 1)
        await extra.close()

        for (index, connection) in [first, second].enumerated() {
            try await connection.write([UInt8(index), 42])
            let reply = try await readExactly(2, from: connection)
            XCTAssertEqual(reply, [UInt8(index), 42])
        }

        // Closing one frees a slot for a newcomer.
        await first.close()
        let freed = try await eventually(loop) { await server.listener.activeConnections == 1 }
        XCTAssertTrue(freed)
        let third = try await TCPConnection.connect(host: "127.0.0.1", port: server.port, loop: loop)
        try await third.write([3])
        let reply = try await readExactly(1, from: third)
        XCTAssertEqual(reply, [3])

        await second.close()
        await third.close()
        await server.stop()
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
    }

    func testAThousandConnectionsToOneListenerComplete() async throws {
        let loop = try EventLoop()
        let server = try await EchoServer.start(maxConnections: 1024, loop: loop)
        let port = server.port
        let total = 1000
        let concurrency = 50
        let completed = try await withThrowingTaskGroup(of: Bool.self) { group -> Int in
            var next = 0
            var done = 0
            func launch(_ index: Int) {
                group.addTask {
                    let connection = try await TCPConnection.connect(host: "127.0.0.1", port: port, loop: loop)
                    let message = withUnsafeBytes(of: UInt32(index).bigEndian) { Array($0) }
                    try await connection.write(message)
                    let reply = try await readExactly(4, from: connection)
                    await connection.close()
                    return reply == message
                }
            }
            while next < min(concurrency, total) { launch(next); next += 1 }
            while let ok = try await group.next() {
                if ok { done += 1 }
                if next < total { launch(next); next += 1 }
            }
            return done
        }
        XCTAssertEqual(completed, total)
        let drained = try await eventually(loop) { await server.listener.activeConnections == 0 }
        XCTAssertTrue(drained, "server-side connections were not all closed")
        await server.stop()
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
    }

    func testCancelledAcceptThrowsAndTheListenerStillAccepts() async throws {
        let loop = try EventLoop()
        let listener = try await TCPListener.bind(loop: loop)
        let waiting = Task { try await listener.accept() }
        try await loop.sleep(milliseconds: 10)
        waiting.cancel()
        do {
            _ = try await waiting.value
            XCTFail("a cancelled accept must throw")
        } catch is CancellationError {}
        let client = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port, loop: loop)
        let server = try await listener.accept()
        XCTAssertNotNil(server)
        await client.close()
        await server?.close()
        await listener.close()
        let afterClose = try await listener.accept()
        XCTAssertNil(afterClose, "a closed listener accepts nothing")
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
    }

    /// An accept loop in a task takes connections that are already waiting on its own
    /// thread, with nothing queued to the listener's loop (an `accept()` isolated to the
    /// loop crossed to it and back for each), in the order they came; one that must wait is
    /// resumed by the loop once the next connection arrives.
    func testAcceptingWaitingConnectionsCrossesNothingToTheLoop() async throws {
        let loop = try EventLoop()
        let dialler = try EventLoop()
        let listener = try await TCPListener.bind(host: "127.0.0.1", port: 0, loop: loop)
        var clients: [TCPConnection] = []
        for index in 0..<20 {
            let client = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port, loop: dialler)
            try await client.write([UInt8(index)])
            clients.append(client)
            let arrived = try await eventually(dialler) { await listener.activeConnections == index + 1 }
            XCTAssertTrue(arrived, "connection \(index) accepted by the loop")
        }
        let before = loop.submittedWork
        var accepted: [TCPConnection] = []
        for _ in 0..<20 {
            guard let connection = try await listener.accept() else { return XCTFail("listener closed early") }
            accepted.append(connection)
        }
        XCTAssertEqual(loop.submittedWork - before, 0, "work queued to the loop to accept 20 waiting connections")
        var firstBytes: [UInt8] = []
        for connection in accepted { firstBytes += try await readExactly(1, from: connection) }
        XCTAssertEqual(firstBytes, Array(0..<20), "accepted in the order they connected")

        let waiting = Task { try await listener.accept() }
        try await dialler.sleep(milliseconds: 10)
        let late = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port, loop: dialler)
        let woken = try await waiting.value
        XCTAssertNotNil(woken, "a waiting accept is resumed by the next connection")

        await listener.close()
        for connection in accepted + clients + [late] { await connection.close() }
        await woken?.close()
        await dialler.shutdown()
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
    }
}
