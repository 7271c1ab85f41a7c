import Bitcoin
import HTLC
@testable import PeerNode
import XCTest

/// Audit H-4: the refund's fee cap and rate rise toward the deadline D = E − 12 − 6.
final class RefundEscalationTests: XCTestCase {
    private func rate(_ satPerVByte: Int64) -> FeeRate { try! FeeRate(satPerVByte: satPerVByte) }

    func testTheDeadlineLeavesRoomForLNDsCancelAndTheRefundsDepth() {
        let escalation = RefundEscalation(timeoutHeight: 200, htlcExpiry: 242, basePercent: 25)
        XCTAssertEqual(escalation.deadlineHeight, 242 - 12 - 6)
        XCTAssertEqual(escalation.blocksLeft(tip: 200), 24)
        XCTAssertEqual(escalation.blocksLeft(tip: 230), 0)
        XCTAssertNil(RefundEscalation(timeoutHeight: 200, htlcExpiry: nil, basePercent: 25).blocksLeft(tip: 200))
    }

    func testTheFeeCapRisesFromTheBaseShareToAllButDust() {
        let escalation = RefundEscalation(timeoutHeight: 200, htlcExpiry: 242, basePercent: 25)
        XCTAssertEqual(escalation.maxFee(lockValue: 100_000, dust: 330, tip: 200), 25_000)
        XCTAssertEqual(escalation.maxFee(lockValue: 100_000, dust: 330, tip: 212), 25_000 + (99_670 - 25_000) / 2)
        XCTAssertEqual(escalation.maxFee(lockValue: 100_000, dust: 330, tip: 224), 99_670)
        XCTAssertEqual(escalation.maxFee(lockValue: 100_000, dust: 330, tip: 300), 99_670)
        // Without a recorded expiry: the base share only.
        XCTAssertEqual(RefundEscalation(timeoutHeight: 200, htlcExpiry: nil, basePercent: 25)
            .maxFee(lockValue: 100_000, dust: 330, tip: 300), 25_000)
    }

    func testTheTargetShrinksAndTheRateGrowsFasterInTheSecondHalf() throws {
        let escalation = RefundEscalation(timeoutHeight: 200, htlcExpiry: 242, basePercent: 25)
        XCTAssertEqual(escalation.confirmationTarget(6, tip: 200), 6)
        XCTAssertEqual(escalation.confirmationTarget(6, tip: 221), 3)
        XCTAssertEqual(escalation.confirmationTarget(6, tip: 240), 1)
        XCTAssertEqual(try escalation.rate(estimate: rate(2), previous: nil, step: rate(1), tip: 200), rate(2))
        XCTAssertEqual(try escalation.rate(estimate: rate(2), previous: rate(10), step: rate(1), tip: 205), rate(11))
        XCTAssertEqual(try escalation.rate(estimate: rate(2), previous: rate(10), step: rate(1), tip: 212), rate(20))
        XCTAssertEqual(try escalation.rate(estimate: rate(40), previous: rate(10), step: rate(1), tip: 212), rate(40))
        // From 2 sat/vB, half the window is enough to pass 500 sat/vB.
        var current = rate(2)
        for tip in UInt32(212)...UInt32(224) {
            current = try escalation.rate(estimate: rate(2), previous: current, step: rate(1), tip: tip)
        }
        XCTAssertGreaterThan(current.satPerKvB, 500_000)
    }
}
