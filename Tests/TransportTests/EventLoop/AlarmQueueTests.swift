import XCTest
@testable import Transport

final class AlarmQueueTests: XCTestCase {
    private func alarm(_ name: String, into fired: Locked<[String]>) -> Alarm {
        Alarm { fired.withLock { $0.append(name) } }
    }

    func testAlarmsComeOutByDueTimeThenByArmingOrder() {
        let fired = Locked<[String]>([])
        var queue = AlarmQueue()
        let dues: [(String, UInt64)] = [("c", 30), ("a", 10), ("b1", 20), ("d", 40), ("b2", 20), ("e", 50)]
        for (name, due) in dues { queue.insert(alarm(name, into: fired), due: due) }
        XCTAssertEqual(queue.earliestDue(), 10)
        XCTAssertEqual(queue.takeDue(at: 9).count, 0, "nothing before its time")
        for alarm in queue.takeDue(at: 20) { alarm.fire() }
        XCTAssertEqual(fired.value, ["a", "b1", "b2"])
        XCTAssertEqual(queue.earliestDue(), 30)
        for alarm in queue.takeDue(at: .max) { alarm.fire() }
        XCTAssertEqual(fired.value, ["a", "b1", "b2", "c", "d", "e"])
        XCTAssertNil(queue.earliestDue())
    }

    func testDisarmedAlarmsAreLeftOutAndSkippedAtTheTop() {
        let fired = Locked<[String]>([])
        var queue = AlarmQueue()
        let first = alarm("first", into: fired)
        let second = alarm("second", into: fired)
        let third = alarm("third", into: fired)
        queue.insert(first, due: 1)
        queue.insert(second, due: 2)
        queue.insert(third, due: 3)
        XCTAssertFalse(first.disarm(), "not fired yet")
        XCTAssertEqual(queue.earliestDue(), 2, "the disarmed top does not set the timer")
        second.disarm()
        let due = queue.takeDue(at: 3)
        XCTAssertEqual(due.count, 1)
        due.forEach { $0.fire() }
        XCTAssertEqual(fired.value, ["third"])
        XCTAssertTrue(third.disarm(), "disarming after the fire says it fired")
        XCTAssertTrue(third.hasFired)
    }

    /// Every request arms a timeout and disarms it within milliseconds: the queue must not
    /// grow with the requests, only with the alarms still armed.
    func testAlarmsDisarmedEarlyDoNotPileUp() {
        var queue = AlarmQueue()
        let kept = (0..<10).map { _ in Alarm {} }
        for (index, alarm) in kept.enumerated() { queue.insert(alarm, due: 1_000_000 + UInt64(index)) }
        for round in 0..<100_000 {
            let alarm = Alarm {}
            queue.insert(alarm, due: 30_000 + UInt64(round))
            alarm.disarm()
        }
        XCTAssertLessThanOrEqual(queue.count, 2 * AlarmQueue.smallestCompaction)
        XCTAssertEqual(queue.takeDue(at: .max).count, 10, "the armed ones survive every compaction")
    }

    func testDisarmingDropsTheActionAndWhatItHolds() {
        final class Payload: Sendable {}
        weak var watched: Payload?
        let alarm: Alarm
        do {
            let payload = Payload()
            watched = payload
            alarm = Alarm { _ = payload }
        }
        XCTAssertNotNil(watched)
        alarm.disarm()
        XCTAssertNil(watched, "a disarmed alarm still held its action's captures")
    }
}
