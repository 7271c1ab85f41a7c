@testable import Offers
import Synchronization
import XCTest

/// A provider whose real fees follow `fee(amount)`, which may differ from its offer's
/// terms; records every amount asked for, and can fail on a given round.
private final class ScriptedQuoter: Quoter {
    struct Failure: Error, CustomStringConvertible {
        var description: String { "provider unreachable" }
    }

    private let fee: @Sendable (Int64) -> (service: Int64, onchain: Int64)
    private let failOnRound: Int?
    private let wrongAmount: Bool
    private let asked = Mutex<[Int64]>([])

    init(failOnRound: Int? = nil, wrongAmount: Bool = false, fee: @escaping @Sendable (Int64) -> (service: Int64, onchain: Int64)) {
        self.fee = fee
        self.failOnRound = failOnRound
        self.wrongAmount = wrongAmount
    }

    var amounts: [Int64] { asked.withLock { $0 } }

    func quote(amountSat: Int64) async throws -> Quote {
        let round = asked.withLock { list -> Int in
            list.append(amountSat)
            return list.count
        }
        if round == failOnRound { throw Failure() }
        let (service, onchain) = fee(amountSat)
        return Fixtures.quote(amount: wrongAmount ? amountSat + 1 : amountSat, service: service, onchain: onchain)
    }
}

final class MaxSendableTests: XCTestCase {
    /// Terms: base 500, 2000 ppm, on-chain 743, 10,000...1,000,000.
    private let offer = Fixtures.offer()
    private let claimFee: Int64 = 150
    private let budget: Int64 = 101_443

    private func settle(_ quoter: ScriptedQuoter, budget: Int64? = nil, maxRounds: Int = MaxSendable.defaultMaxRounds) async
        -> MaxSendableResult {
        await MaxSendable(offer: offer, claimFeeSat: claimFee, budgetSat: budget ?? self.budget, maxRounds: maxRounds)
            .settle(using: quoter)
    }

    /// Whatever the outcome: an amount comes only with the quote that verified it, the
    /// quote fits the budget, and that exact amount was asked for.
    private func assertVerified(_ result: MaxSendableResult, _ quoter: ScriptedQuoter, budget: Int64? = nil,
                                file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.rounds, quoter.amounts.count, "rounds are counted", file: file, line: line)
        guard let amount = result.amountSat else {
            XCTAssertNil(result.quote, file: file, line: line)
            return
        }
        let quote = try! XCTUnwrap(result.quote)
        XCTAssertEqual(quote.amountSat, amount + claimFee, file: file, line: line)
        XCTAssertLessThanOrEqual(quote.totalSat, budget ?? self.budget, file: file, line: line)
        XCTAssertTrue(quoter.amounts.contains(quote.amountSat), "only a quoted amount is returned", file: file, line: line)
    }

    func testFeesAsTheTermsSettleInOneRound() async {
        let quoter = ScriptedQuoter { (500 + $0 * 2_000 / 1_000_000, 743) }
        let result = await settle(quoter)
        assertVerified(result, quoter)
        XCTAssertEqual(result.outcome, .settled)
        XCTAssertEqual(quoter.amounts, [100_000])
        XCTAssertEqual(result.amountSat, 99_850)
        XCTAssertEqual(result.quote?.totalSat, 101_443)
    }

    func testFeesRisingWithTheAmountAcceptTheFirstVerifiedCandidate() async {
        // The provider charges 5000 ppm, not the offered 2000.
        let quoter = ScriptedQuoter { (500 + $0 * 5_000 / 1_000_000, 743) }
        let result = await settle(quoter)
        assertVerified(result, quoter)
        XCTAssertEqual(result.outcome, .settled)
        // 100,000 costs 101,743 (300 over): lower by ceil(300 / 1.002) = 300 to 99,700,
        // which costs 101,441 and fits: accepted without another round.
        XCTAssertEqual(quoter.amounts, [100_000, 99_700])
        XCTAssertEqual(result.rounds, 2)
        XCTAssertEqual(result.amountSat, 99_700 - claimFee)
    }

    func testFeesFallingWithTheAmountClimb() async {
        // 1000 ppm above 50,000 sat: cheaper than the terms for large amounts.
        let quoter = ScriptedQuoter { amount in (500 + amount * (amount > 50_000 ? 1_000 : 2_000) / 1_000_000, 743) }
        let result = await settle(quoter)
        assertVerified(result, quoter)
        XCTAssertEqual(result.outcome, .settled)
        // 100,000 costs 101,343 (100 spare): climb floor(100 / 1.002) = 99 to 100,099 at
        // 101,442; 1 sat spare buys nothing more.
        XCTAssertEqual(quoter.amounts, [100_000, 100_099])
        XCTAssertEqual(result.amountSat, 100_099 - claimFee)
    }

    func testNonMonotoneFeesAfterAMissSettleOnTheBestVerified() async {
        // Cheap up to 100,000, a 500 sat surcharge above: climbing misses, and lowering
        // lands below the amount already verified, which is returned.
        let quoter = ScriptedQuoter { amount in
            (500 + amount * 2_000 / 1_000_000 + (amount > 100_000 ? 500 : -500), 743)
        }
        let result = await settle(quoter)
        assertVerified(result, quoter)
        XCTAssertEqual(result.outcome, .settled)
        XCTAssertEqual(quoter.amounts.count, 2)
        XCTAssertEqual(quoter.amounts[0], 100_000)
        XCTAssertGreaterThan(quoter.amounts[1], 100_000)
        XCTAssertEqual(result.amountSat, 100_000 - claimFee)
    }

    func testNonMonotoneFeesWithATierBelow() async {
        // A 1000 sat surcharge from 99,500 up, a 600 sat discount below.
        let quoter = ScriptedQuoter { amount in
            (500 + amount * 2_000 / 1_000_000 + (amount >= 99_500 ? 1_000 : -600), 743)
        }
        let result = await settle(quoter)
        assertVerified(result, quoter)
        XCTAssertEqual(result.outcome, .settled)
        // 100,000 costs 102,443 (1000 over): lower by ceil(1000 / 1.002) = 999 to 99,001,
        // which costs 99,842 in the cheap tier: verified after a miss, accepted.
        XCTAssertEqual(quoter.amounts, [100_000, 99_001])
        XCTAssertEqual(result.amountSat, 99_001 - claimFee)
    }

    func testAFailedRequoteReturnsTheLastVerifiedAmountOrNone() async {
        // Miss, then the re-quote fails: nothing was verified, nothing is returned.
        let rising = ScriptedQuoter(failOnRound: 2) { (500 + $0 * 5_000 / 1_000_000, 743) }
        let none = await settle(rising)
        assertVerified(none, rising)
        XCTAssertNil(none.amountSat)
        XCTAssertEqual(none.outcome, .quoteFailed("provider unreachable"))
        XCTAssertEqual(none.rounds, 2)
        // Fit with room, the climb's quote fails: the first amount stands.
        let falling = ScriptedQuoter(failOnRound: 2) { (0, $0 > 0 ? 743 : 0) }
        let some = await settle(falling)
        assertVerified(some, falling)
        XCTAssertEqual(some.amountSat, 100_000 - claimFee)
        XCTAssertEqual(some.outcome, .quoteFailed("provider unreachable"))
        // The very first quote fails.
        let dead = ScriptedQuoter(failOnRound: 1) { _ in (0, 0) }
        let nothing = await settle(dead)
        XCTAssertNil(nothing.amountSat)
        XCTAssertEqual(nothing.rounds, 1)
        // A quote for another amount than asked is a failure too.
        let sloppy = ScriptedQuoter(wrongAmount: true) { _ in (0, 0) }
        let refused = await settle(sloppy)
        XCTAssertNil(refused.amountSat)
        XCTAssertEqual(refused.outcome, .quoteFailed("the quote is for another amount than asked"))
    }

    func testRoundsExhaustedReturnTheBestVerified() async {
        // No fees at all: every round finds room to climb.
        let free = ScriptedQuoter { _ in (0, 0) }
        let unbounded = await settle(free)
        assertVerified(unbounded, free)
        // 100,000 -> +1440 -> 101,440 -> +2 -> 101,442 -> +0: settled in 3 rounds.
        XCTAssertEqual(free.amounts, [100_000, 101_440, 101_442])
        XCTAssertEqual(unbounded.outcome, .settled)
        let limited = ScriptedQuoter { _ in (0, 0) }
        let result = await settle(limited, maxRounds: 2)
        assertVerified(result, limited)
        XCTAssertEqual(result.outcome, .roundsExhausted)
        XCTAssertEqual(result.rounds, 2)
        XCTAssertEqual(result.amountSat, 101_440 - claimFee)
    }

    func testBudgetBelowTheMinimum() async {
        // The minimum lock (10,000) costs 10,000 + 520 + 743 = 11,263.
        let quoter = ScriptedQuoter { (500 + $0 * 2_000 / 1_000_000, 743) }
        let result = await settle(quoter, budget: 11_262)
        XCTAssertEqual(result, MaxSendableResult(amountSat: nil, quote: nil, rounds: 0, outcome: .budgetBelowMinimum))
        XCTAssertTrue(quoter.amounts.isEmpty, "no quote is asked for")
        let exact = await settle(quoter, budget: 11_263)
        XCTAssertEqual(exact.amountSat, 10_000 - claimFee)
        // The terms say the minimum fits, the real quote says not even that.
        let steep = ScriptedQuoter { _ in (5_000, 743) }
        let refused = await settle(steep, budget: 11_263)
        assertVerified(refused, steep, budget: 11_263)
        XCTAssertNil(refused.amountSat)
        XCTAssertEqual(refused.outcome, .budgetBelowMinimum)
        XCTAssertEqual(refused.rounds, 1)
    }

    func testBudgetAboveTheProvidersMaximum() async {
        let quoter = ScriptedQuoter { (500 + $0 * 2_000 / 1_000_000, 743) }
        let result = await settle(quoter, budget: 5_000_000)
        assertVerified(result, quoter, budget: 5_000_000)
        XCTAssertEqual(result.outcome, .atProviderMaximum)
        XCTAssertEqual(quoter.amounts, [1_000_000])
        XCTAssertEqual(result.amountSat, 1_000_000 - claimFee)
    }
}
