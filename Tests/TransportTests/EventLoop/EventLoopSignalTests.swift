import Glibc
import XCTest
@testable import Transport

/// Signals sent to this very process. The watcher is installed (its handler replaces the
/// default action) before each signal is raised, so SIGTERM cannot kill the test run.
/// Signals go to the process with kill(getpid()), not raise(): raise targets the calling
/// thread, and the concurrency pool's threads block signals, so it would stay pending.
final class EventLoopSignalTests: XCTestCase {
    private func expect(_ signal: Int32, from watcher: SignalWatcher, loop: EventLoop) async throws -> Int32? {
        try await withThrowingTaskGroup(of: Int32?.self) { group in
            group.addTask {
                for await received in watcher.signals { return received }
                return nil
            }
            group.addTask {
                try await loop.sleep(milliseconds: 5_000)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    func testSIGTERMToSelfIsObservedAndDoesNotKill() async throws {
        let loop = try EventLoop()
        let watcher = try await SignalWatcher.start(watching: [SIGINT, SIGTERM], loop: loop)
        XCTAssertEqual(kill(getpid(), SIGTERM), 0)
        let received = try await expect(SIGTERM, from: watcher, loop: loop)
        XCTAssertEqual(received, SIGTERM)
        await watcher.stop()
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
    }

    func testSIGINTToSelfIsObserved() async throws {
        let loop = try EventLoop()
        let watcher = try await SignalWatcher.start(watching: [SIGINT, SIGTERM], loop: loop)
        XCTAssertEqual(kill(getpid(), SIGINT), 0)
        let received = try await expect(SIGINT, from: watcher, loop: loop)
        XCTAssertEqual(received, SIGINT)
        await watcher.stop()
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
    }

    func testStoppedWatcherEndsItsStream() async throws {
        let loop = try EventLoop()
        let watcher = try await SignalWatcher.start(watching: [SIGUSR1], loop: loop)
        await watcher.stop()
        var iterator = watcher.signals.makeAsyncIterator()
        let next = await iterator.next()
        XCTAssertNil(next)
        await watcher.stop()  // idempotent
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
    }
}
