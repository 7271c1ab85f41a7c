import XCTest
@testable import Transport

/// The loop's alarms: one loop timer for all of them, armed and disarmed from any thread.
final class EventLoopAlarmTests: XCTestCase {
    func testAnAlarmFiresOnTheLoopThreadNotBeforeItsTime() async throws {
        let loop = try EventLoop()
        let clock = ContinuousClock()
        let start = clock.now
        let onLoop = Locked<Bool?>(nil)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = loop.alarm(milliseconds: 30) {
                onLoop.withLock { $0 = loop.inEventLoop }
                done.resume()
            }
        }
        XCTAssertGreaterThanOrEqual(clock.now - start, .milliseconds(30))
        XCTAssertEqual(onLoop.value, true)
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
    }

    func testADisarmedAlarmNeverFires() async throws {
        let loop = try EventLoop()
        let fired = Locked(false)
        let alarm = loop.alarm(milliseconds: 20) { fired.withLock { $0 = true } }
        XCTAssertFalse(alarm.disarm())
        try await loop.sleep(milliseconds: 60)
        XCTAssertFalse(fired.value)
        XCTAssertFalse(alarm.hasFired)
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
    }

    /// The loop timer is set for a later alarm; one armed after it, due sooner, must not
    /// wait for the later one.
    func testAnAlarmDueSoonerThanTheTimerFiresOnTime() async throws {
        let loop = try EventLoop()
        let late = loop.alarm(milliseconds: 60_000) {}
        let clock = ContinuousClock()
        let start = clock.now
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = loop.alarm(milliseconds: 20) { done.resume() }
        }
        XCTAssertGreaterThanOrEqual(clock.now - start, .milliseconds(20))
        XCTAssertLessThan(clock.now - start, .seconds(30))
        late.disarm()
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
    }

    /// What the alarms are for: a request's timeout armed and disarmed within its
    /// request does not wake the loop, once one timer is running.
    func testArmingAndDisarmingTimeoutsDoesNotWakeTheLoop() async throws {
        let loop = try EventLoop()
        let first = loop.alarm(milliseconds: 30_000) {}
        try await loop.sleep(milliseconds: 5)
        let before = loop.alarms.loopWakeups
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<500 { loop.alarm(milliseconds: 30_000) {}.disarm() }
                }
            }
        }
        XCTAssertEqual(loop.alarms.loopWakeups, before, "2,000 timeouts armed after the first woke the loop")
        first.disarm()
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
    }

    func testManyAlarmsFromManyThreadsAllFireInDueOrderPerThread() async throws {
        let loop = try EventLoop()
        let fired = Locked<[Int]>([])
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    await withTaskGroup(of: Void.self) { inner in
                        for index in 0..<50 {
                            inner.addTask {
                                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                                    _ = loop.alarm(milliseconds: UInt64(index % 25)) {
                                        fired.withLock { $0.append(thread * 100 + index) }
                                        done.resume()
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        XCTAssertEqual(fired.value.count, 200)
        XCTAssertEqual(Set(fired.value).count, 200)
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
    }

    /// At shutdown an armed alarm is dropped, as a sleep there ends without its work, and
    /// the loop's one alarm timer is closed with the rest.
    func testShutdownDropsArmedAlarmsAndClosesTheTimer() async throws {
        let loop = try EventLoop()
        let fired = Locked(false)
        _ = loop.alarm(milliseconds: 10_000) { fired.withLock { $0 = true } }
        try await loop.sleep(milliseconds: 5)
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
        _ = loop.alarm(milliseconds: 1) { fired.withLock { $0 = true } }
        XCTAssertFalse(fired.value)
    }

    /// A sleeper without a loop (a test clock) keeps its alarm with a sleeping task.
    func testAnySleepersAlarmFiresOrIsDisarmed() async throws {
        let loop = try EventLoop()
        let sleeper = TaskSleeperForTest(loop: loop)
        let fired = Locked(0)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = sleeper.alarm(milliseconds: 10) {
                fired.withLock { $0 += 1 }
                done.resume()
            }
        }
        let disarmed = sleeper.alarm(milliseconds: 10) { fired.withLock { $0 += 1 } }
        XCTAssertFalse(disarmed.disarm())
        try await loop.sleep(milliseconds: 40)
        XCTAssertEqual(fired.value, 1)
        await loop.shutdown()
    }

    /// A Sleeper with only `sleep`: it gets the protocol's own alarm.
    private struct TaskSleeperForTest: Sleeper {
        let loop: EventLoop
        func sleep(milliseconds: UInt64) async throws { try await loop.sleep(milliseconds: milliseconds) }
    }
}
