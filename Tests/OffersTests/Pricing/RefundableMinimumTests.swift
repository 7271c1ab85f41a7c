import HTLC
@testable import Offers
import Transport
import XCTest

/// Audit H-4: a provider never quotes a lock whose refund, at the highest rate it will
/// always pay (its fee cap), would not fit in the lock minus the refund output's dust.
final class RefundableMinimumTests: XCTestCase {
    // The largest offered refund (p2wsh_v2 to a P2TR wallet address) is 144 vB; P2TR dust 330.
    func testTheSmallestRefundableLockIsTheRefundAtTheCapPlusDust() throws {
        let at500 = ProviderTerms(network: .regtest, refundFeeCap: Fixtures.rate(500))
        XCTAssertEqual(at500.smallestRefundableLockSat, 144 * 500 + 330)
        XCTAssertEqual(at500.effectiveMinAmountSat, 72_330, "the refund floor is above the configured 10,000")
        let taprootOnly = ProviderTerms(network: .regtest, contractTypes: [.taprootBoltz], refundFeeCap: Fixtures.rate(500))
        XCTAssertEqual(taprootOnly.smallestRefundableLockSat, 138 * 500 + 330)
        let generous = ProviderTerms(network: .regtest, minAmountSat: 100_000, refundFeeCap: Fixtures.rate(500))
        XCTAssertEqual(generous.effectiveMinAmountSat, 100_000, "a configured minimum above the floor stands")
        // The default cap (100 sat/vB) keeps the demo's and scenarios' 20,000 sat swaps.
        XCTAssertEqual(ProviderTerms(network: .regtest).effectiveMinAmountSat, 144 * 100 + 330)
        XCTAssertLessThan(ProviderTerms(network: .regtest).effectiveMinAmountSat, 20_000)
    }

    func testTheOfferAdvertisesTheEffectiveMinimum() throws {
        let builder = OfferBuilder(terms: ProviderTerms(network: .regtest, refundFeeCap: Fixtures.rate(500)),
                                   provider: Fixtures.provider.pubky)
        let offer = try builder.offer(requestID: "r", offerID: "o", liquiditySat: 5_000_000, rate: Fixtures.rate(2),
                                      nowUnix: Fixtures.now)
        XCTAssertEqual(offer.minAmountSat, 72_330)
        // A wallet that cannot lock the refundable minimum makes no offer, and says what it needs.
        XCTAssertOffersError(.insufficientLiquidity(available: 71_585, needed: 72_330)) {
            try builder.offer(requestID: "r", offerID: "o", liquiditySat: 72_330, rate: Fixtures.rate(2), nowUnix: Fixtures.now)
        }
    }

    func testAnAmountWhoseRefundWouldNotFitIsNeverQuoted() async throws {
        let terms = ProviderTerms(network: .regtest, refundFeeCap: Fixtures.rate(500))
        let desk = ProviderDesk(identity: Fixtures.provider, terms: terms, clock: TestClock(Fixtures.now)) {
            ProviderState(liquiditySat: 5_000_000, feeRate: Fixtures.rate(2))
        }
        let offerReply = await desk.answer(OfferRequest(requestID: "a", network: "regtest").encoded, from: Fixtures.client.pubky)
        guard case .offer(let offer) = try SwapMessage(bytes: try XCTUnwrap(offerReply)) else { return XCTFail("an offer") }
        let small = await desk.answer(QuoteRequest(requestID: "q1", offerID: offer.body.offerID, amountSat: 72_329).encoded,
                                      from: Fixtures.client.pubky)
        guard case .reject(let reject) = try SwapMessage(bytes: try XCTUnwrap(small)) else { return XCTFail("a reject") }
        XCTAssertEqual(reject.code, .amountOutOfRange)
        XCTAssertTrue(reject.reason.contains("the offered 72,330 sat to"), reject.reason)
        let fits = await desk.answer(QuoteRequest(requestID: "q2", offerID: offer.body.offerID, amountSat: 72_330).encoded,
                                     from: Fixtures.client.pubky)
        guard case .quote(let quote) = try SwapMessage(bytes: try XCTUnwrap(fits)) else { return XCTFail("a quote") }
        XCTAssertEqual(quote.body.amountSat, 72_330)
    }
}
