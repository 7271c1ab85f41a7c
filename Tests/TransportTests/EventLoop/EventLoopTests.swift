import Glibc
import Synchronization
import XCTest
@testable import Transport

/// An actor that runs on the loop thread, as HTTP and channel code will.
private actor LoopPinned {
    let loop: EventLoop
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
    private var count = 0

    init(loop: EventLoop) { self.loop = loop }

    func step() async throws -> (onLoop: Bool, count: Int) {
        count += 1
        // Straight-line async code: a loop timer in the middle of an isolated method.
        try await loop.sleep(milliseconds: 1)
        count += 1
        return (loop.inEventLoop, count)
    }
}

final class EventLoopTests: XCTestCase {
    func testSubmittedWorkRunsOnTheLoopThreadInOrder() async throws {
        let loop = try EventLoop()
        XCTAssertFalse(loop.inEventLoop)
        let seen = Locked<[Int]>([])
        let allOnLoop = Locked(true)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            for i in 0..<100 {
                loop.execute {
                    if !loop.inEventLoop { allOnLoop.withLock { $0 = false } }
                    seen.withLock { $0.append(i) }
                    if i == 99 { done.resume() }
                }
            }
        }
        XCTAssertTrue(allOnLoop.withLock { $0 })
        XCTAssertEqual(seen.withLock { $0 }, Array(0..<100))
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
    }

    func testWorkSubmittedFromManyThreadsAllRuns() async throws {
        let loop = try EventLoop()
        let counter = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                        for i in 0..<500 {
                            loop.execute {
                                counter.withLock { $0 += 1 }
                                if i == 499 { done.resume() }
                            }
                        }
                    }
                }
            }
        }
        XCTAssertEqual(counter.withLock { $0 }, 4000)
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
    }

    func testActorPinnedToTheLoopRunsOnItsThread() async throws {
        let loop = try EventLoop()
        let pinned = LoopPinned(loop: loop)
        let first = try await pinned.step()
        let second = try await pinned.step()
        XCTAssertTrue(first.onLoop)
        XCTAssertTrue(second.onLoop)
        XCTAssertEqual(second.count, 4)
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
    }

    func testShutdownClosesEveryOpenHandle() async throws {
        let loop = try EventLoop()
        let listener = try await TCPListener.bind(host: "127.0.0.1", port: 0, loop: loop)
        let client = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port, loop: loop)
        let server = try await listener.accept()
        XCTAssertNotNil(server)
        let watcher = try await SignalWatcher.start(watching: [SIGUSR2], loop: loop)
        // A sleep, a read and an accept left waiting: shutdown must end each of them.
        async let sleeping: Void = loop.sleep(milliseconds: 60_000)
        async let reading = client.read()
        async let accepting = listener.accept()
        try await loop.sleep(milliseconds: 20)

        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0, "uv_loop_close found handles still open")

        do {
            try await sleeping
            XCTFail("sleep outlived the loop")
        } catch let error as EventLoopError {
            XCTAssertEqual(error, .shutDown)
        }
        let readEnd = try await reading
        XCTAssertNil(readEnd)
        do {
            let late = try await accepting
            XCTAssertNil(late)
        } catch let error as EventLoopError {
            XCTAssertEqual(error, .shutDown)
        }
        var signals = watcher.signals.makeAsyncIterator()
        let none = await signals.next()
        XCTAssertNil(none, "the signal stream ends at shutdown")
    }

    func testShutdownTwiceAndWorkAfterShutdownIsRefused() async throws {
        let loop = try EventLoop()
        await loop.shutdown()
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
        do {
            try await loop.sleep(milliseconds: 1)
            XCTFail("a stopped loop has no timers")
        } catch let error as EventLoopError {
            XCTAssertEqual(error, .shutDown)
        }
        do {
            _ = try await TCPConnection.connect(host: "127.0.0.1", port: 9, loop: loop)
            XCTFail("a stopped loop cannot connect")
        } catch let error as EventLoopError {
            XCTAssertEqual(error, .shutDown)
        }
    }
}
