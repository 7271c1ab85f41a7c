import HTLC
@testable import Offers
import Transport
import XCTest

/// The client's checks of a quote before it commits.
final class QuotePolicyTests: XCTestCase {
    private let policy = QuotePolicy()
    private let request = QuoteRequest(requestID: "req-2", offerID: "offer-1", amountSat: 100_000)
    private let provider = Fixtures.provider

    private func check(_ quote: Quote, signer: NodeIdentity? = nil, offer: Offer? = Fixtures.offer(),
                       now: UInt64 = Fixtures.now, policy: QuotePolicy? = nil) throws -> Quote {
        try (policy ?? self.policy).check(Signed(signing: quote, with: signer ?? provider), answering: request,
                                          provider: provider.pubky, offer: offer, nowUnix: now)
    }

    func testAGoodQuotePasses() throws {
        XCTAssertEqual(try check(Fixtures.quote()), Fixtures.quote())
        XCTAssertEqual(QuotePolicy.defaultMaxFeePPM, 50_000)
        XCTAssertEqual(policy.maximumFee(amountSat: 100_000), 5_000)
    }

    func testSignatureMustBeTheProviders() {
        XCTAssertOffersError(.invalidSignature) { try check(Fixtures.quote(), signer: Fixtures.stranger) }
    }

    func testQuoteMustAddUp() {
        var quote = Fixtures.quote()
        quote.feeSat += 1
        quote.totalSat += 1
        XCTAssertOffersError(.quoteMismatch("fee_sat is not service_fee_sat + onchain_fee_sat")) { try check(quote) }
        quote = Fixtures.quote()
        quote.totalSat -= 1
        XCTAssertOffersError(.quoteMismatch("total_sat is not amount_sat + fee_sat")) { try check(quote) }
        quote = Fixtures.quote(amount: 99_999)
        XCTAssertOffersError(.quoteMismatch("amount_sat is not the amount asked for")) { try check(quote) }
        quote = Fixtures.quote()
        quote.requestID = "other"
        XCTAssertOffersError(.quoteMismatch("request_id is not the request's")) { try check(quote) }
        quote = Fixtures.quote(service: 701)
        XCTAssertOffersError(.quoteMismatch("fees above the offer's terms")) { try check(quote) }
        XCTAssertNoThrow(try check(Fixtures.quote(service: 600)), "a discount is fine")
    }

    func testFeeUnderTheMaximum() {
        // 5% of 100,000 = 5,000: a 5,001 fee is refused, 5,000 passes.
        XCTAssertOffersError(.feeAboveMaximum(fee: 5_001, maximum: 5_000)) {
            try check(Fixtures.quote(service: 4_258), offer: nil)
        }
        XCTAssertNoThrow(try check(Fixtures.quote(service: 4_257), offer: nil))
        XCTAssertOffersError(.feeAboveMaximum(fee: 1_443, maximum: 1_000)) {
            try check(Fixtures.quote(), policy: QuotePolicy(maxFeePPM: 10_000))
        }
    }

    func testConfirmationsAndTimeoutAreSane() {
        XCTAssertOffersError(.unacceptableTerms("7 confirmations (at most 6)")) { try check(Fixtures.quote(confirmations: 7)) }
        XCTAssertOffersError(.unacceptableTerms("htlc_timeout_blocks 24 outside 25...1008")) {
            try check(Fixtures.quote(timeout: 24))
        }
        XCTAssertOffersError(.unacceptableTerms("htlc_timeout_blocks 1009 outside 25...1008")) {
            try check(Fixtures.quote(timeout: 1_009))
        }
        XCTAssertNoThrow(try check(Fixtures.quote(confirmations: 0, timeout: 24)))
    }

    func testLifetimeIsSane() {
        XCTAssertOffersError(.quoteExpired) { try check(Fixtures.quote(validUntil: Fixtures.now - 1)) }
        XCTAssertOffersError(.unacceptableTerms("quote valid for more than 600 s")) {
            try check(Fixtures.quote(validUntil: Fixtures.now + 601))
        }
        XCTAssertNoThrow(try check(Fixtures.quote(validUntil: Fixtures.now)))
    }
}
