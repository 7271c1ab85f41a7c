import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import TestSupport
import Transport
import XCTest

/// Audit M-1: the client's own claim must fit its fee cap (20 % of the lock) before it
/// commits and pays; a swap whose claim could never be built is refused up front.
final class ClientClaimCapTests: XCTestCase {
    /// X = 8,000 sat at 20 sat/vB: the claim fee is more than 20 % of X plus the fee.
    /// Before the fix the client paid the invoice and only then refused its own claim.
    func testAClaimAboveTheFeeCapIsRefusedBeforeAnythingIsPaid() async throws {
        let fixture = try await ClientEngineFixture(lock: .honest)
        // A payer who accepts the small swap's service fee (15 %): only the claim cap is in question.
        let engine = try fixture.engine(quotePolicy: QuotePolicy(maxFeePPM: 150_000))
        let x: Int64 = 8_000
        let decision = try await fixture.route(amountSat: 50_000)  // for the offer only
        let provider = try XCTUnwrap(decision.choice, "\(decision.debugLines)").provider
        // Fees rise between routing and paying.
        fixture.hub.chain.setFeeEstimate(.feeRate(20_000))
        let before = try fixture.clientBalanceMsat()
        let destination = fixture.destination
        do {
            _ = try await within(seconds: 30) { try await engine.pay(destination: destination, amountSat: x, via: provider) }
            XCTFail("a claim above the cap must not be paid for")
        } catch let error as ClientEngineError {
            XCTAssertTrue(error.description.contains("nothing was paid"), error.description)
            XCTAssertTrue(error.description.contains("cap"), error.description)
        }
        XCTAssertEqual(try fixture.clientBalanceMsat(), before, "nothing paid")
        let swaps = await fixture.provider.swaps
        XCTAssertTrue(swaps.isEmpty, "no commitment to the provider")
        let records = try await fixture.store.allSwaps(limit: 10)
        XCTAssertEqual(records.count, 0, "no swap stored")
        await fixture.shutDown(engine)
    }
}
