import Lightning
@testable import PeerNode
import XCTest

/// The routing fee a client swap paid is known only when its Lightning payment succeeds,
/// and that is when the provider settles: possibly after the swap is final (the claim
/// confirmed first), or while this node is down. The fee is recorded whenever the
/// payment's final update arrives, and the books count it once.
final class ClientRoutingFeeTests: XCTestCase {
    private let amount: Int64 = 100_000

    /// The provider settles only after the client's swap completed: the fee is recorded
    /// then, and equals what the client's Lightning balance paid beyond the invoice.
    func testAFeeSettledAfterTheSwapIsFinalIsRecorded() async throws {
        let fixture = try await ClientEngineFixture(lock: .honest)
        await fixture.provider.holdSettlement()
        let engine = try fixture.engine()
        let before = try fixture.clientBalanceMsat()
        let decision = try await fixture.route(amountSat: amount)
        let report = try await fixture.pay(engine, amountSat: amount, route: decision, within: 60)
        try await fixture.mineUntilDelivered(report.swapID, amountSat: amount)
        let early = try await ClientEngine.recordedRoutingFee(report.swapID, in: fixture.store)
        XCTAssertNil(early, "the payment is still held when the swap completes: no fee is known yet")

        try await fixture.provider.settleHeld()
        let fee = try await recordedFee(report.swapID, fixture)
        let paid = Int64(before - (try fixture.clientBalanceMsat()))
        XCTAssertGreaterThan(fee, 0, "the hub's route charges a fee")
        XCTAssertEqual(paid, report.invoiceTotalSat * 1_000 + fee, "the recorded fee is what the balance paid beyond the invoice")
        try await assertBooksCountTheFeeOnce(report.swapID, fee: fee, invoiceTotalSat: report.invoiceTotalSat, fixture)
        await fixture.shutDown(engine)
    }

    /// The node is down when the provider settles: the restarted engine finds the
    /// completed swap without a fee, asks LND for the payment, and records the fee.
    func testAFeeSettledWhileTheNodeWasDownIsRecordedAfterTheRestart() async throws {
        let fixture = try await ClientEngineFixture(lock: .honest)
        await fixture.provider.holdSettlement()
        let first = try fixture.engine()
        let before = try fixture.clientBalanceMsat()
        let decision = try await fixture.route(amountSat: amount)
        let report = try await fixture.pay(first, amountSat: amount, route: decision, within: 60)
        try await fixture.mineUntilDelivered(report.swapID, amountSat: amount)
        await first.shutDown()
        try await fixture.provider.settleHeld()
        let providerSwaps = await fixture.provider.swaps
        try await fixture.trackedPaymentSucceeds(try XCTUnwrap(providerSwaps.values.first).request.paymentHash)
        let whileDown = try await ClientEngine.recordedRoutingFee(report.swapID, in: fixture.store)
        XCTAssertNil(whileDown, "nothing ran to record it while the node was down")

        let second = try fixture.engine()
        let resumed = try await second.recover()
        XCTAssertEqual(resumed, [], "a completed swap is not resumed; only its payment is looked up")
        let fee = try await recordedFee(report.swapID, fixture)
        XCTAssertEqual(Int64(before - (try fixture.clientBalanceMsat())), report.invoiceTotalSat * 1_000 + fee)
        try await assertBooksCountTheFeeOnce(report.swapID, fee: fee, invoiceTotalSat: report.invoiceTotalSat, fixture)
        await fixture.shutDown(second)
    }

    private func recordedFee(_ id: String, _ fixture: ClientEngineFixture) async throws -> Int64 {
        let store = fixture.store
        try await clientEventually("the routing fee is recorded") {
            try await ClientEngine.recordedRoutingFee(id, in: store) != nil
        }
        return try await XCTUnwrapAsync(try await ClientEngine.recordedRoutingFee(id, in: store))
    }

    /// The report's entry carries the fee once: in its routing column and once in its net.
    private func assertBooksCountTheFeeOnce(_ id: String, fee: Int64, invoiceTotalSat: Int64, _ fixture: ClientEngineFixture,
                                            file: StaticString = #filePath, line: UInt = #line) async throws {
        let record = try await XCTUnwrapAsync(try await fixture.store.swap(id))
        let history = SwapHistory(record: record, events: try await fixture.store.events(of: id),
                                  routingFeeMsat: try await ClientEngine.recordedRoutingFee(id, in: fixture.store))
        let books = try SwapAccounting(swaps: [history])
        let entry = try XCTUnwrap(books.entries.first, file: file, line: line)
        XCTAssertEqual(entry.outcome, .completed, file: file, line: line)
        XCTAssertEqual(entry.routingFeeMsat, fee, file: file, line: line)
        XCTAssertEqual(entry.lightningMsat, -(invoiceTotalSat * 1_000 + fee), file: file, line: line)
        XCTAssertEqual(books.overall[.client]?.routingFeeUnrecorded, 0, file: file, line: line)
    }
}
