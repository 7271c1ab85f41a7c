import XCTest
@testable import Transport

final class EventLoopTimerTests: XCTestCase {

    func testSleepLastsAtLeastTheRequestedTime() async throws {
        let loop = try EventLoop()
        let clock = ContinuousClock()
        for milliseconds: UInt64 in [0, 5, 50] {
            let start = clock.now
            try await loop.sleep(milliseconds: milliseconds)
            let elapsed = clock.now - start
            // Lower bound only: an upper bound would flake on a busy machine.
            XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(Int(milliseconds)))
        }
        // Through the Sleeper seam the protocol code uses.
        let sleeper: any Sleeper = loop.sleeper
        let start = clock.now
        try await sleeper.sleep(milliseconds: 30)
        XCTAssertGreaterThanOrEqual(clock.now - start, .milliseconds(30))
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
    }

    func testCancellingASleepStopsItsTimerAndThrows() async throws {
        let loop = try EventLoop()
        let clock = ContinuousClock()
        let start = clock.now
        let task = Task { try await loop.sleep(milliseconds: 60_000) }
        try await loop.sleep(milliseconds: 10)
        task.cancel()
        do {
            try await task.value
            XCTFail("a cancelled sleep must throw")
        } catch is CancellationError {}
        XCTAssertLessThan(clock.now - start, .seconds(30), "cancellation did not stop the timer")
        // The cancelled timer's handle is closed: the loop closes cleanly.
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
    }

    func testSleepInAnAlreadyCancelledTaskThrowsAtOnce() async throws {
        let loop = try EventLoop()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await loop.sleep(milliseconds: 60_000)
        }
        do {
            try await task.value
            XCTFail("expected CancellationError")
        } catch is CancellationError {}
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
    }

    func testManyConcurrentSleepsAllFinish() async throws {
        let loop = try EventLoop()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<200 {
                group.addTask { try await loop.sleep(milliseconds: UInt64(i % 20)) }
            }
            try await group.waitForAll()
        }
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
    }
}

final class EventLoopRepeatingTimerTests: XCTestCase {
    func testRepeatingTimerTicksOnTheLoopUntilCancelled() async throws {
        let loop = try EventLoop()
        let ticks = Locked(0)
        let offLoop = Locked(false)
        let timer = loop.scheduleRepeating(everyMilliseconds: 2) {
            if !loop.inEventLoop { offLoop.withLock { $0 = true } }
            ticks.withLock { $0 += 1 }
        }
        for _ in 0..<500 where ticks.value < 3 {
            try await loop.sleep(milliseconds: 2)
        }
        XCTAssertGreaterThanOrEqual(ticks.value, 3)
        timer.cancel()
        // Once a turn of the loop has passed after cancel, no tick may follow.
        try await loop.sleep(milliseconds: 1)
        let atCancel = ticks.value
        try await loop.sleep(milliseconds: 20)
        XCTAssertEqual(ticks.value, atCancel)
        XCTAssertFalse(offLoop.value)
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
    }

    func testShutdownClosesARepeatingTimer() async throws {
        let loop = try EventLoop()
        _ = loop.scheduleRepeating(everyMilliseconds: 1) {}
        try await loop.sleep(milliseconds: 5)
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
    }
}
