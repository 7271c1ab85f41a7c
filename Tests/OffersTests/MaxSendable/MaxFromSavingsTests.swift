@testable import Offers
import Transport
import XCTest

/// `max --from savings`: the largest X whose submarine lock plus the lock's miner fee fits
/// the confirmed savings, settled against the provider's real quotes; and the direct
/// on-chain maximum.
final class MaxFromSavingsTests: XCTestCase {
    /// carol: invoices of 10,000...500,000 sat, 400 sat + 1,500 ppm, 380 sat claim.
    private let carol = RailFixtures.provider(3, "carol")
    private let lockSweepFee: Int64 = 300

    /// The largest X with X + 400 + floor(X × 1,500 / 1e6) + 380 + 300 <= savings, found by
    /// walking down from the savings (independent of the search's arithmetic).
    private func largestByWalking(savings: Int64) -> Int64 {
        var amount = savings
        while amount + 400 + amount * 1_500 / 1_000_000 + 380 + lockSweepFee > savings { amount -= 1 }
        return amount
    }

    /// X fits to the sat and X + 1 does not, by the provider's own quotes, at savings where
    /// the ppm's floor falls either way.
    func testTheLargestAmountFitsAndOneMoreDoesNot() async throws {
        for savings: Int64 in [30_000, 100_000, 100_781, 100_782, 101_228, 250_123, 333_333] {
            let quoter = QuoteBookQuoter(offer: carol.terms)
            let max = MaxFromSavings(savingsSat: savings, lockSweepFeeSat: lockSweepFee)
            let result = try await max.settle(carol, using: quoter).get()
            let amount = try XCTUnwrap(result.amountSat, "savings \(savings)")
            let quote = try XCTUnwrap(result.quote)
            XCTAssertEqual(amount, largestByWalking(savings: savings), "savings \(savings)")
            XCTAssertEqual(quote.amountSat, amount, "the quote is for the invoice X itself")
            XCTAssertEqual(quote.swapDirection, .onchainToLightning)
            XCTAssertLessThanOrEqual(quote.totalSat + lockSweepFee, savings, "X fits, lock fee included")
            let above = try await QuoteBookQuoter(offer: carol.terms).quote(amountSat: amount + 1)
            XCTAssertGreaterThan(above.totalSat + lockSweepFee, savings, "X + 1 does not (savings \(savings))")
            XCTAssertTrue(quoter.amounts.contains(amount), "only a quoted amount is returned")
            XCTAssertLessThanOrEqual(result.rounds, MaxSendable.defaultMaxRounds)
        }
    }

    func testTheProviderMaximumAndMinimumBound() async throws {
        let rich = try await MaxFromSavings(savingsSat: 10_000_000, lockSweepFeeSat: lockSweepFee)
            .settle(carol, using: QuoteBookQuoter(offer: carol.terms)).get()
        XCTAssertEqual(rich.amountSat, 500_000)
        XCTAssertEqual(rich.outcome, .atProviderMaximum)
        // 10,000 + 415 + 380 + 300 = 11,095: one sat less cannot pay the minimum invoice.
        let justEnough = try await MaxFromSavings(savingsSat: 11_095, lockSweepFeeSat: lockSweepFee)
            .settle(carol, using: QuoteBookQuoter(offer: carol.terms)).get()
        XCTAssertEqual(justEnough.amountSat, 10_000)
        let quoter = QuoteBookQuoter(offer: carol.terms)
        let poor = try await MaxFromSavings(savingsSat: 11_094, lockSweepFeeSat: lockSweepFee).settle(carol, using: quoter).get()
        XCTAssertNil(poor.amountSat)
        XCTAssertEqual(poor.outcome, .budgetBelowMinimum)
        XCTAssertEqual(quoter.amounts, [], "nothing is asked when the terms already rule it out")
    }

    /// A quote in the other direction verifies nothing.
    func testAQuoteForTheOtherDirectionIsRefused() async throws {
        struct ReverseQuoter: Quoter {
            func quote(amountSat: Int64) async throws -> Quote { Fixtures.quote(amount: amountSat, service: 0, onchain: 0) }
        }
        let result = try await MaxFromSavings(savingsSat: 100_000, lockSweepFeeSat: lockSweepFee)
            .settle(carol, using: ReverseQuoter()).get()
        XCTAssertNil(result.amountSat)
        XCTAssertEqual(result.outcome, .quoteFailed("the quote is for another direction than asked"))
    }

    func testAReverseOnlyProviderIsSkipped() async {
        let bob = RailFixtures.provider(2, "bob", submarine: nil)
        let result = await MaxFromSavings(savingsSat: 100_000, lockSweepFeeSat: lockSweepFee)
            .settle(bob, using: QuoteBookQuoter(offer: bob.terms))
        XCTAssertEqual(result, .failure(.directionNotOffered(.onchainToLightning)))
    }

    func testTheDirectMaximumIsTheSavingsLessTheSweepFee() {
        XCTAssertEqual(MaxFromSavings.directMax(savingsSat: 100_000, sweepFeeSat: 282, dustLimitSat: 330), 99_718)
        XCTAssertEqual(MaxFromSavings.directMax(savingsSat: 612, sweepFeeSat: 282, dustLimitSat: 330), 330)
        XCTAssertNil(MaxFromSavings.directMax(savingsSat: 611, sweepFeeSat: 282, dustLimitSat: 330))
        XCTAssertNil(MaxFromSavings.directMax(savingsSat: 0, sweepFeeSat: 282, dustLimitSat: 330))
    }

    /// Direct beats any swap; between providers the largest X, a tie to the smaller lock.
    func testTheBestOfDirectAndEachProvider() async throws {
        let dear = RailFixtures.provider(4, "dear", submarine: RailFixtures.submarineTerms(base: 900))
        let twin = RailFixtures.provider(5, "twin", submarine: RailFixtures.submarineTerms(base: 400, onchain: 379))
        let small = RailFixtures.provider(6, "small", submarine: RailFixtures.submarineTerms(max: 20_000))
        // 99,999 + 400 + 149 + 380 + 300: 100,000 would add 2 (the ppm's floor steps to 150),
        // so twin's one sat of room buys nothing.
        let savings: Int64 = 101_228
        let max = MaxFromSavings(savingsSat: savings, lockSweepFeeSat: lockSweepFee)
        var results: [(provider: ProviderOffer, result: MaxSendableResult)] = []
        for provider in [dear, carol, twin, small] {
            results.append((provider, try await max.settle(provider, using: QuoteBookQuoter(offer: provider.terms)).get()))
        }
        XCTAssertEqual(results[1].result.amountSat, results[2].result.amountSat, "carol and twin reach the same X")
        guard case .submarine(let provider, let amount, let result)? = MaxFromSavings.best(direct: nil, submarine: results) else {
            return XCTFail("a provider fits")
        }
        XCTAssertEqual(provider.contact.name, "twin", "same X, one sat less to lock")
        XCTAssertEqual(amount, 99_999)
        XCTAssertEqual(amount, largestByWalking(savings: savings))
        XCTAssertEqual(result.quote?.totalSat, (results[1].result.quote?.totalSat ?? 0) - 1)
        XCTAssertEqual(MaxFromSavings.best(direct: 99_718, submarine: results), .direct(amountSat: 99_718))
        XCTAssertNil(MaxFromSavings.best(direct: nil, submarine: []))
    }
}
