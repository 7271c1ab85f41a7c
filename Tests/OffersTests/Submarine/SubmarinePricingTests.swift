import Bitcoin
import HTLC
@testable import Offers
import Transport
import XCTest

/// Pricing of `onchain_to_ln`: the provider's cost is its claim; the client locks
/// amount + base + floor(amount × ppm / 1e6) + that claim fee; the offer's maximum is what
/// the provider's Lightning balance can pay now.
final class SubmarinePricingTests: XCTestCase {
    private let client = Fixtures.client.pubky

    /// ceil(rate × 152 × 125 / 100,000): the claim of either contract type to P2TR is 152 vB.
    func testTheOnchainFeeIsTheProvidersClaim() throws {
        let estimate = SubmarineFeeEstimate()
        XCTAssertEqual(estimate.claimVirtualSize, 152)
        XCTAssertEqual(estimate.onchainFee(at: Fixtures.rate(1)), 190)
        XCTAssertEqual(estimate.onchainFee(at: Fixtures.rate(2)), 380)
        XCTAssertEqual(estimate.onchainFee(at: try FeeRate(satPerKvB: 1_234)), 235, "ceil(1234 × 152 × 1.25 / 1000) = ceil(234.46)")
        XCTAssertEqual(SubmarineFeeEstimate(contractTypes: [.taprootBoltz], safetyPercent: 100).onchainFee(at: Fixtures.rate(10)), 1_520)
    }

    /// The largest invoice payable from a balance with the routing reserve (1 sat + 1000 ppm, rounded up) on top.
    func testThePayableAmountLeavesTheRoutingReserve() throws {
        let terms = try SubmarineTerms()
        for outbound: Int64 in [0, 1, 2, 1_000, 20_021, 1_000_000, 123_456_789] {
            let payable = terms.payableAmount(outboundSat: outbound)
            let reserve = RoutingFeeEstimate()
            if payable > 0 {
                XCTAssertLessThanOrEqual(payable + reserve.fee(paymentSat: payable), outbound, "\(outbound)")
            }
            XCTAssertGreaterThan(payable + 1 + reserve.fee(paymentSat: payable + 1), outbound, "\(outbound): the next sat does not fit")
        }
        XCTAssertEqual(terms.payableAmount(outboundSat: 1_000_000), 999_000)
        XCTAssertEqual(terms.payableAmount(outboundSat: 0), 0)
    }

    func testSubmarineTermsRefuseZeroConfirmationsAndATimeoutWithNoRoomToPay() {
        XCTAssertOffersError(.unacceptableTerms("onchain_to_ln needs at least 1 confirmation, not 0")) {
            try SubmarineTerms(requiredConfirmations: 0)
        }
        // 2 + 12 + 12 + 3 + 160 + 18 = 207: an invoice with BOLT11's default final delta is
        // admitted, its route allowance kept, at the end of the confirmation wait.
        XCTAssertEqual(SubmarineTerms.shortestTimeoutBlocks(requiredConfirmations: 2), 207)
        XCTAssertEqual(rejectCode { try SubmarineTerms(requiredConfirmations: 2, htlcTimeoutBlocks: 206) }, .invalidRequest)
        XCTAssertNoThrow(try SubmarineTerms(requiredConfirmations: 2, htlcTimeoutBlocks: 207))
        // Without a route allowance (payees that are direct peers): 2 + 12 + 12 + 3 + 18 = 47.
        XCTAssertEqual(rejectCode { try SubmarineTerms(requiredConfirmations: 2, htlcTimeoutBlocks: 46, routeCLTVBlocks: 0) },
                       .invalidRequest)
        XCTAssertNoThrow(try SubmarineTerms(requiredConfirmations: 2, htlcTimeoutBlocks: 47, routeCLTVBlocks: 0))
        XCTAssertEqual(rejectCode { try SubmarineTerms(routeCLTVBlocks: -1) }, .invalidRequest)
        let rules = SubmarineRules(network: .regtest, providerNodeID: Fixtures.key(0x88).publicKey, routeCLTVBlocks: 160)
        let latest = SubmarineRules.latestPlannedPayment(tipHeight: 1_000, confirmations: 2)
        XCTAssertTrue(SubmarineRules.fitsUnder(cltvLimit: SubmarineRules.cltvLimit(timeoutHeight: 1_207, tipHeight: latest)
                                                   - rules.routeCLTVBlocks, minFinalCLTVExpiry: 18))
        XCTAssertFalse(SubmarineRules.fitsUnder(cltvLimit: SubmarineRules.cltvLimit(timeoutHeight: 1_206, tipHeight: latest)
                                                    - rules.routeCLTVBlocks, minFinalCLTVExpiry: 18))
        XCTAssertEqual(rejectCode { try SubmarineTerms(htlcTimeoutBlocks: 1_009) }, .invalidRequest)
        XCTAssertEqual(try SubmarineTerms().htlcTimeoutBlocks, 288)
        XCTAssertEqual(try SubmarineTerms().routeCLTVBlocks, 160)
    }

    func testTheOfferListsBothDirectionsWithTheSubmarineMaximumFromTheLightningBalance() throws {
        let submarine = try SubmarineTerms(feeModel: FeeModel(baseFeeSat: 400, feePPM: 1_500), maxAmountSat: 500_000)
        let builder = OfferBuilder(terms: ProviderTerms(network: .regtest, submarine: submarine), provider: Fixtures.provider.pubky)
        let rich = try builder.offer(requestID: "r", offerID: "o", liquiditySat: 2_000_000, rate: Fixtures.rate(2),
                                     nowUnix: Fixtures.now, lightningOutboundSat: 800_000)
        XCTAssertEqual(rich.terms(for: .onchainToLightning),
                       DirectionTerms(direction: .onchainToLightning, minAmountSat: 10_000, maxAmountSat: 500_000, baseFeeSat: 400,
                                      feePPM: 1_500, onchainFeeSat: 380, requiredConfirmations: 1, htlcTimeoutBlocks: 288),
                       "the offer advertises the direction's timeout")
        let poor = try builder.offer(requestID: "r", offerID: "o", liquiditySat: 2_000_000, rate: Fixtures.rate(2),
                                     nowUnix: Fixtures.now, lightningOutboundSat: 100_000)
        XCTAssertEqual(poor.terms(for: .onchainToLightning)?.maxAmountSat, 99_899, "never more than it can pay now")
        let broke = try builder.offer(requestID: "r", offerID: "o", liquiditySat: 2_000_000, rate: Fixtures.rate(2),
                                      nowUnix: Fixtures.now, lightningOutboundSat: 5_000)
        XCTAssertNil(broke.terms(for: .onchainToLightning), "below the minimum: the direction is left out")
        XCTAssertEqual(broke.directions, ["ln_to_onchain"])
        let unread = try builder.offer(requestID: "r", offerID: "o", liquiditySat: 2_000_000, rate: Fixtures.rate(2),
                                       nowUnix: Fixtures.now)
        XCTAssertNil(unread.terms(for: .onchainToLightning), "a balance not read is not offered")
        XCTAssertOffersError(.insufficientLiquidity(available: 0, needed: 14_730)) {
            try builder.offer(requestID: "r", offerID: "o", liquiditySat: 0, rate: Fixtures.rate(2), nowUnix: Fixtures.now,
                              lightningOutboundSat: 1_000)
        }
    }

    /// The reverse direction's numbers do not move when the provider adds submarine swaps.
    func testTheReverseTermsAreUnchangedBySubmarineTerms() throws {
        let plain = OfferBuilder(terms: ProviderTerms(network: .regtest), provider: Fixtures.provider.pubky)
        let both = OfferBuilder(terms: ProviderTerms(network: .regtest, submarine: try SubmarineTerms()),
                                provider: Fixtures.provider.pubky)
        let before = try plain.offer(requestID: "r", offerID: "o", liquiditySat: 2_000_000, rate: Fixtures.rate(2), nowUnix: Fixtures.now)
        let after = try both.offer(requestID: "r", offerID: "o", liquiditySat: 2_000_000, rate: Fixtures.rate(2), nowUnix: Fixtures.now,
                                   lightningOutboundSat: 800_000)
        XCTAssertEqual(after.terms(for: .lightningToOnchain), before.terms(for: .lightningToOnchain))
        XCTAssertEqual(after.minAmountSat, before.minAmountSat)
        XCTAssertEqual(after.onchainFeeSat, before.onchainFeeSat)
    }

    func testASubmarineQuoteChargesTheSubmarineTermsAndTotalsTheLock() throws {
        var book = QuoteBook(clock: TestClock(Fixtures.now))
        let offer = Fixtures.twoWayOffer()
        let request = QuoteRequest(requestID: "q", offerID: "offer-1", direction: .onchainToLightning, amountSat: 20_000,
                                   paymentHash: Fixtures.paymentHash)
        let quote = try book.issue(for: request, client: client, offer: offer, lockableSat: 600_000, quoteID: "quote-s")
        XCTAssertEqual(quote.swapDirection, .onchainToLightning)
        XCTAssertEqual(quote.serviceFeeSat, 400 + 30, "base 400 + floor(20,000 × 1500 / 1e6)")
        XCTAssertEqual(quote.onchainFeeSat, 380)
        XCTAssertEqual(quote.totalSat, 20_810, "the client locks 20,000 + 430 + 380")
        XCTAssertEqual(quote.paymentHash, Fixtures.paymentHash)
        XCTAssertEqual(quote.requiredConfirmations, 1)
        XCTAssertNoThrow(try QuotePolicy().check(Signed(signing: quote, with: Fixtures.provider), answering: request,
                                                 provider: Fixtures.provider.pubky, offer: offer, nowUnix: Fixtures.now))
        // The same amount in the reverse direction is priced by the reverse terms, as before.
        let reverse = try book.issue(for: QuoteRequest(requestID: "q2", offerID: "offer-1", amountSat: 20_000), client: client,
                                     offer: offer, lockableSat: 600_000, quoteID: "quote-r")
        XCTAssertEqual(reverse.serviceFeeSat, 540)
        XCTAssertEqual(reverse.onchainFeeSat, 743)
    }

    func testSubmarineQuotesAreRefusedOutsideTheSubmarineTerms() throws {
        var book = QuoteBook(clock: TestClock(Fixtures.now))
        func request(_ amount: Int64) -> QuoteRequest {
            QuoteRequest(requestID: "q", offerID: "offer-1", direction: .onchainToLightning, amountSat: amount)
        }
        let offer = Fixtures.twoWayOffer()
        XCTAssertOffersError(.submarineAmountOutOfRange(amount: 500_001, minimum: 10_000, maximum: 500_000)) {
            try book.issue(for: request(500_001), client: client, offer: offer, lockableSat: 5_000_000)
        }
        let outside = Reject(requestID: "q", error: .submarineAmountOutOfRange(amount: 500_001, minimum: 10_000, maximum: 500_000))
        XCTAssertEqual(outside.code, .amountOutOfRange)
        XCTAssertEqual(outside.reason, "an invoice of 500,001 sat is outside the offered 10,000 sat to 500,000 sat")
        XCTAssertOffersError(.insufficientLightning(available: 50_000, needed: 60_000)) {
            try book.issue(for: request(60_000), client: client, offer: offer, lockableSat: 50_000)
        }
        XCTAssertEqual(OffersError.insufficientLightning(available: 50_000, needed: 60_000).rejectCode, .insufficientLiquidity)
        XCTAssertOffersError(.unsupportedDirection) {
            try book.issue(for: request(20_000), client: client, offer: Fixtures.offer(), lockableSat: 500_000)
        }
        let sideways = try QuoteRequest(json: Fixtures.setting("direction", to: .string("sideways"), in: request(20_000).json))
        XCTAssertOffersError(.unsupportedDirection) {
            try book.issue(for: sideways, client: client, offer: offer, lockableSat: 500_000)
        }
    }

    /// The client's checks of a submarine quote.
    func testTheClientRefusesASubmarineQuoteThatDoesNotMatch() throws {
        let offer = Fixtures.twoWayOffer()
        let request = QuoteRequest(requestID: "req-2", offerID: "offer-1", direction: .onchainToLightning, amountSat: 100_000,
                                   paymentHash: Fixtures.paymentHash)
        let policy = QuotePolicy()
        func check(_ quote: Quote) throws -> Quote {
            try policy.check(Signed(signing: quote, with: Fixtures.provider), answering: request,
                             provider: Fixtures.provider.pubky, offer: offer, nowUnix: Fixtures.now)
        }
        XCTAssertNoThrow(try check(Fixtures.submarineQuote()))
        XCTAssertOffersError(.quoteMismatch("payment_hash is not the one asked for")) {
            try check(Fixtures.submarineQuote(paymentHash: [UInt8](repeating: 1, count: 32)))
        }
        var zeroConf = Fixtures.submarineQuote()
        zeroConf.requiredConfirmations = 0
        XCTAssertOffersError(.unacceptableTerms("onchain_to_ln with 0 confirmations (at least 1)")) { try check(zeroConf) }
        var dearer = Fixtures.submarineQuote()
        dearer.onchainFeeSat = 381
        dearer.feeSat += 1
        dearer.totalSat += 1
        XCTAssertOffersError(.quoteMismatch("fees above the offer's terms")) { try check(dearer) }
        // A longer wait for the refund than the offer advertised is not the offer chosen.
        var longer = Fixtures.submarineQuote()
        longer.htlcTimeoutBlocks = Fixtures.submarineTerms().htlcTimeoutBlocks + 1
        XCTAssertOffersError(.quoteMismatch("htlc_timeout_blocks \(longer.htlcTimeoutBlocks) above the offer's "
                                            + "\(Fixtures.submarineTerms().htlcTimeoutBlocks)")) { try check(longer) }
        var advertised = Fixtures.submarineQuote()
        advertised.htlcTimeoutBlocks = Fixtures.submarineTerms().htlcTimeoutBlocks
        XCTAssertNoThrow(try check(advertised))
        XCTAssertOffersError(.quoteMismatch("the offer does not run onchain_to_ln")) {
            try policy.check(Signed(signing: Fixtures.submarineQuote(), with: Fixtures.provider), answering: request,
                             provider: Fixtures.provider.pubky, offer: Fixtures.offer(), nowUnix: Fixtures.now)
        }
    }
}
