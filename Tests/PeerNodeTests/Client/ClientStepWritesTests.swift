import Bitcoin
@testable import PeerNode
import XCTest

/// The client engine writes a swap's steps before every act that leaves the process, and
/// the steps between two such acts in one write (ClientSwapAction.needsStepsWritten).
final class ClientStepWritesTests: XCTestCase {
    private let amount: Int64 = 100_000

    func testStepsWithNothingDoneOutsideBetweenThemShareOneWrite() async throws {
        let fixture = try await ClientEngineFixture(lock: .honest)
        let store = RecordingSwapStore(fixture.store)
        let engine = try fixture.engine(store: store)
        let decision = try await fixture.route(amountSat: amount)
        let report = try await fixture.pay(engine, amountSat: amount, route: decision, within: 60)
        try await fixture.mineUntilDelivered(report.swapID, amountSat: amount)

        var writes = await store.writes(of: report.swapID)
        let kinds = try await fixture.kinds(of: report.swapID)
        // The record, its first step and the payment hash's entry in the index (audit
        // H-5): one write, and the hash is written nowhere else.
        let paymentHash = try await fixture.paymentHash(ofSwap: report.swapID)
        XCTAssertEqual(writes.first, ["quoted", ClientPaymentHashIndex.index.key(paymentHash)])
        let alone = await store.valuesSetAlone
        XCTAssertFalse(alone.contains { $0.hasPrefix("client.payment_hash.") }, "\(alone)")
        let index = try await fixture.store.value(forKey: ClientPaymentHashIndex.index.key(paymentHash))
        XCTAssertEqual(index, Array(report.swapID.utf8))
        writes[0] = ["quoted"]
        XCTAssertEqual(writes.flatMap { $0 }, kinds, "every step is written once, in order: \(writes)")
        // The accept is verified and the payment's intent recorded with nothing sent in
        // between; the payment leaves after both are on disk.
        XCTAssertTrue(writes.contains(["accepted", "pay_started"]), "\(writes)")
        // The lock seen, then checked against the contract in memory: one write, before
        // the claim is broadcast.
        let lockWrite = try XCTUnwrap(writes.first { $0.contains("lock_seen") }, "\(writes)")
        XCTAssertTrue(lockWrite.starts(with: ["lock_seen", "lock_verified"]), "\(writes)")
        XCTAssertEqual(writes.last?.last, "completed")
        XCTAssertLessThan(writes.count, kinds.count)
    }
}

/// The rule for steps no action asked to write (HTLC.md, Threats, ENGINE-1).
final class ClientStepWriteRuleTests: XCTestCase {
    func testStepsWaitOnlyWhileInputsQueueAndNeverMoreThanTheLimit() {
        XCTAssertTrue(ClientEngine.writesStepsNow(queuedInputs: 0, unwritten: 1))
        XCTAssertFalse(ClientEngine.writesStepsNow(queuedInputs: 3, unwritten: ClientEngine.unwrittenStepLimit - 1))
        // A provider pushing status updates without pause keeps inputs queued: the limit
        // writes the steps anyway.
        XCTAssertTrue(ClientEngine.writesStepsNow(queuedInputs: 3, unwritten: ClientEngine.unwrittenStepLimit))
    }

    func testEveryActionThatLeavesTheProcessNeedsTheStepsWrittenFirst() {
        let claim = Transaction(version: 2, inputs: [], outputs: [], lockTime: 0)
        for action: ClientSwapAction in [.pay(resuming: false), .lookForLock, .broadcastClaim(claim),
                                         .resumeClaim(claim, revealBefore: 100), .maintainClaim(tipHeight: 1),
                                         .pushPreimage, .finish] {
            XCTAssertTrue(action.needsStepsWritten, "\(action)")
        }
        XCTAssertFalse(ClientSwapAction.checkChain.needsStepsWritten)
        XCTAssertFalse(ClientSwapAction.armGiveUpTimer(deadlineUnix: 1).needsStepsWritten)
    }
}
