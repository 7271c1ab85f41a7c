import HTLC
@testable import Offers
import Transport
import XCTest

/// Ranking providers' `onchain_to_ln` terms for paying X from savings.
final class SubmarineSelectorTests: XCTestCase {
    private let amount: Int64 = 20_000
    private let lockFee: Int64 = 300

    /// The lock holds X + base + floor(X × ppm / 1e6) + the provider's claim fee, exactly the
    /// `total_sat` the provider's own QuoteBook quotes; the client's cost adds the lock's
    /// miner fee; the payee's invoice is X. All in integer sats.
    func testPricesTheLockExactlyAsTheProviderQuotesIt() async throws {
        // 20,000 × 1,499 / 1e6 = 29.98: the floor is 29.
        let provider = RailFixtures.provider(1, "carol", submarine: RailFixtures.submarineTerms(base: 400, ppm: 1_499, onchain: 381))
        let candidate = try SubmarineSelector(amountSat: amount, lockFeeSat: lockFee).price(provider).get()
        XCTAssertEqual(candidate.amountSat, 20_000)
        XCTAssertEqual(candidate.serviceFeeSat, 429)
        XCTAssertEqual(candidate.providerOnchainFeeSat, 381)
        XCTAssertEqual(candidate.lockAmountSat, 20_810)
        XCTAssertEqual(candidate.totalCostSat, 429 + 381 + 300)
        XCTAssertEqual(candidate.spendSat, 21_110)
        XCTAssertEqual(candidate.spendSat, candidate.amountSat + candidate.totalCostSat)
        XCTAssertEqual(candidate.contractType, .taprootBoltz)
        let quote = try await QuoteBookQuoter(offer: provider.terms).quote(amountSat: amount)
        XCTAssertEqual(quote.amountSat, candidate.amountSat, "the provider pays an invoice of exactly X")
        XCTAssertEqual(quote.totalSat, candidate.lockAmountSat)
        XCTAssertEqual(quote.feeSat, candidate.providerFeeSat)
    }

    func testTheCheapestProviderComesFirst() {
        let providers = [
            RailFixtures.provider(1, "dear", submarine: RailFixtures.submarineTerms(base: 900)),
            RailFixtures.provider(2, "cheap", submarine: RailFixtures.submarineTerms(base: 100)),
            RailFixtures.provider(3, "middle", submarine: RailFixtures.submarineTerms(base: 100, onchain: 500)),
        ]
        let ranked = SubmarineSelector(amountSat: amount, lockFeeSat: lockFee).rank(providers)
        XCTAssertEqual(ranked.ranked.map(\.provider.contact.name), ["cheap", "middle", "dear"])
        // Service 30 sat of ppm each, the lock's 300 sat fee each.
        let expected: [Int64] = [810, 930, 1_610]
        XCTAssertEqual(ranked.ranked.map(\.totalCostSat), expected)
        XCTAssertEqual(ranked.skipped, [])
    }

    /// Same cost: fewer confirmations, then a shorter timeout, then the pubky.
    func testTiesGoToFewerConfirmationsThenShorterTimeoutThenPubky() {
        let providers = [
            RailFixtures.provider(1, "slow", submarine: RailFixtures.submarineTerms(confirmations: 3, timeout: 144)),
            RailFixtures.provider(2, "long", submarine: RailFixtures.submarineTerms(confirmations: 1, timeout: 288)),
            RailFixtures.provider(3, "best", submarine: RailFixtures.submarineTerms(confirmations: 1, timeout: 144)),
            RailFixtures.provider(4, "twin", submarine: RailFixtures.submarineTerms(confirmations: 1, timeout: 144)),
        ]
        let ranked = SubmarineSelector(amountSat: amount, lockFeeSat: lockFee).rank(providers).ranked
        let (best, twin) = (providers[2].contact.pubky.z32, providers[3].contact.pubky.z32)
        XCTAssertEqual(ranked.map(\.provider.contact.name), (best < twin ? ["best", "twin"] : ["twin", "best"]) + ["long", "slow"])
        XCTAssertEqual(Set(ranked.map(\.totalCostSat)).count, 1, "a tie in cost")
    }

    /// A provider whose `onchain_to_ln` maximum is below X, or minimum above it, is skipped
    /// and says so in the amounts the payer typed; a reverse-only provider runs no such swap.
    func testSkipsProvidersThatCannotPayTheInvoice() {
        let providers = [
            RailFixtures.provider(1, "small", submarine: RailFixtures.submarineTerms(max: 19_999)),
            RailFixtures.provider(2, "large", submarine: RailFixtures.submarineTerms(min: 20_001)),
            RailFixtures.provider(3, "reverse-only", submarine: nil),
            RailFixtures.provider(4, "drained", submarine: RailFixtures.submarineTerms(min: 10_000, max: 0)),
            RailFixtures.provider(5, "exact", submarine: RailFixtures.submarineTerms(min: 20_000, max: 20_000)),
        ]
        let ranked = SubmarineSelector(amountSat: amount, lockFeeSat: lockFee).rank(providers)
        XCTAssertEqual(ranked.ranked.map(\.provider.contact.name), ["exact"], "the bounds are inclusive")
        let reasons = Dictionary(uniqueKeysWithValues: ranked.skipped.map { ($0.contact.name, $0.reason) })
        XCTAssertEqual(reasons["small"], .invoiceAmountOutOfRange(amountSat: 20_000, minimumSat: 10_000, maximumSat: 19_999))
        XCTAssertEqual(reasons["small"]?.description, "the largest invoice its offer pays is 19,999 sat (not 20,000 sat)")
        XCTAssertEqual(reasons["large"]?.description, "the smallest invoice its offer pays is 20,001 sat (not 20,000 sat)")
        XCTAssertEqual(reasons["reverse-only"], .directionNotOffered(.onchainToLightning))
        XCTAssertEqual(reasons["reverse-only"]?.description, "offers no on-chain-to-Lightning swaps")
        XCTAssertEqual(reasons["drained"]?.description, "its offer pays no Lightning invoice now (its maximum is below its minimum)")
    }

    /// The reverse selector never prices a submarine-only provider from its top-level terms
    /// (which are its `onchain_to_ln` ones).
    func testTheReverseSelectorSkipsASubmarineOnlyProvider() {
        let provider = RailFixtures.provider(1, "swap-in-only", reverse: false)
        XCTAssertTrue(provider.terms.supports(.onchainToLightning))
        XCTAssertFalse(provider.terms.supports(.lightningToOnchain))
        let selector = RouteSelector(amountSat: amount, destination: .p2tr, claimFeeRate: Fixtures.rate(2))
        XCTAssertEqual(selector.ranked([provider]).skipped.map(\.reason), [.directionNotOffered(.lightningToOnchain)])
        XCTAssertEqual(SubmarineSelector(amountSat: amount, lockFeeSat: lockFee).rank([provider]).ranked.count, 1)
    }

    func testAContractTypeAskedForMustBeOffered() throws {
        var offer = RailFixtures.provider(1, "p2wsh-only").terms
        offer.features = ["p2wsh_v2"]
        let provider = ProviderOffer(contact: RailFixtures.contact(1, "p2wsh-only"), offer: Signed(signing: offer, with: Fixtures.identity(1)))
        XCTAssertEqual(try SubmarineSelector(amountSat: amount, lockFeeSat: lockFee).price(provider).get().contractType, .p2wsh)
        XCTAssertEqual(SubmarineSelector(amountSat: amount, lockFeeSat: lockFee, contractType: .taprootBoltz).rank([provider]).skipped
                           .map(\.reason), [.contractTypeNotOffered(wanted: .taprootBoltz, offered: [.p2wsh])])
    }
}
