import HTLC
@testable import Offers
import Transport
import XCTest

/// Quotes: 300 s, single use, bound to the client, capped; each refusal with its code.
final class QuoteBookTests: XCTestCase {
    private let client = Fixtures.client.pubky

    private func request(_ amount: Int64 = 100_000, offer: String = "offer-1") -> QuoteRequest {
        QuoteRequest(requestID: "q", offerID: offer, amountSat: amount)
    }

    func testQuotePricesByTheOfferAndRedeemsOnce() throws {
        let clock = TestClock(Fixtures.now)
        var book = QuoteBook(clock: clock)
        let quote = try book.issue(for: request(), client: client, offer: Fixtures.offer(), lockableSat: 500_000,
                                   quoteID: "q1")
        XCTAssertEqual(quote.serviceFeeSat, 700)
        XCTAssertEqual(quote.onchainFeeSat, 743)
        XCTAssertEqual(quote.feeSat, 1_443)
        XCTAssertEqual(quote.totalSat, 101_443)
        XCTAssertEqual(quote.validUntilUnix, Fixtures.now + 300)
        XCTAssertEqual(quote.requestID, "q")
        XCTAssertEqual(book.liveCount, 1)
        clock.advance(by: 300) // still valid through valid_until_unix
        XCTAssertEqual(try book.redeem(quoteID: "q1", client: client), quote)
        XCTAssertOffersError(.quoteAlreadyUsed) { try book.redeem(quoteID: "q1", client: client) }
        XCTAssertEqual(rejectCode { try book.redeem(quoteID: "q1", client: client) }, .unknownQuote)
    }

    func testExpiredQuoteIsRefused() throws {
        let clock = TestClock(Fixtures.now)
        var book = QuoteBook(clock: clock)
        _ = try book.issue(for: request(), client: client, offer: Fixtures.offer(), lockableSat: 500_000, quoteID: "q1")
        clock.advance(by: 301)
        XCTAssertOffersError(.quoteExpired) { try book.redeem(quoteID: "q1", client: client) }
        XCTAssertEqual(rejectCode { try book.redeem(quoteID: "q1", client: client) }, .unknownQuote, "then forgotten")
        XCTAssertEqual(book.liveCount, 0)
    }

    func testForeignClientIsRefusedWithoutLearningAnything() throws {
        let clock = TestClock(Fixtures.now)
        var book = QuoteBook(clock: clock)
        _ = try book.issue(for: request(), client: client, offer: Fixtures.offer(), lockableSat: 500_000, quoteID: "q1")
        XCTAssertOffersError(.quoteNotForThisClient) { try book.redeem(quoteID: "q1", client: Fixtures.stranger.pubky) }
        XCTAssertEqual(OffersError.quoteNotForThisClient.rejectCode, .unknownQuote)
        XCTAssertEqual(OffersError.quoteNotForThisClient.description, OffersError.unknownQuote.description)
        clock.advance(by: 400)
        XCTAssertOffersError(.quoteNotForThisClient, { try book.redeem(quoteID: "q1", client: Fixtures.stranger.pubky) })
        XCTAssertOffersError(.unknownQuote) { try book.redeem(quoteID: "nope", client: client) }
        // The rightful client can still use it while valid.
        var fresh = QuoteBook(clock: TestClock(Fixtures.now))
        _ = try fresh.issue(for: request(), client: client, offer: Fixtures.offer(), lockableSat: 500_000, quoteID: "q2")
        XCTAssertThrowsError(try fresh.redeem(quoteID: "q2", client: Fixtures.stranger.pubky))
        XCTAssertNoThrow(try fresh.redeem(quoteID: "q2", client: client))
    }

    func testRefusalsWhenIssuing() throws {
        let clock = TestClock(Fixtures.now)
        var book = QuoteBook(clock: clock)
        let offer = Fixtures.offer()
        XCTAssertEqual(rejectCode { try book.issue(for: request(9_999), client: client, offer: offer, lockableSat: 500_000) },
                       .amountOutOfRange)
        XCTAssertEqual(rejectCode { try book.issue(for: request(1_000_001), client: client, offer: offer, lockableSat: 5_000_000) },
                       .amountOutOfRange)
        XCTAssertEqual(rejectCode { try book.issue(for: request(200_000), client: client, offer: offer, lockableSat: 199_999) },
                       .insufficientLiquidity)
        XCTAssertEqual(rejectCode { try book.issue(for: request(offer: "other"), client: client, offer: offer, lockableSat: 500_000) },
                       .notFound)
        let sideways = QuoteRequest(requestID: "q", offerID: "offer-1", direction: .lightningToOnchain, amountSat: 100_000)
        XCTAssertNoThrow(try book.issue(for: sideways, client: client, offer: offer, lockableSat: 500_000))
        clock.advance(by: 601)
        XCTAssertEqual(rejectCode { try book.issue(for: request(), client: client, offer: offer, lockableSat: 500_000) },
                       .quoteExpired, "the offer itself expired")
    }

    func testAtMostTenThousandLiveQuotes() throws {
        XCTAssertEqual(QuoteBook.defaultCapacity, 10_000)
        let clock = TestClock(Fixtures.now)
        var book = QuoteBook(clock: clock)
        let offer = Fixtures.offer(validUntil: Fixtures.now + 10_000)
        // A hundred clients, each at its share of 100.
        let clients = (0..<100).map { Fixtures.identity(UInt8(0x60 + $0)).pubky }
        for index in 0..<10_000 {
            _ = try book.issue(for: request(), client: clients[index % 100], offer: offer, lockableSat: 500_000,
                               quoteID: "q\(index)")
        }
        XCTAssertEqual(book.liveCount, 10_000)
        XCTAssertOffersError(.tooManyQuotes(limit: 10_000)) {
            try book.issue(for: request(), client: client, offer: offer, lockableSat: 500_000, quoteID: "one-more")
        }
        XCTAssertEqual(OffersError.tooManyQuotes(limit: 10_000).rejectCode, .rateLimited)
        // Once they expire there is room again, and the expired are gone.
        clock.advance(by: 301)
        XCTAssertNoThrow(try book.issue(for: request(), client: client, offer: offer, lockableSat: 500_000, quoteID: "later"))
        XCTAssertEqual(book.liveCount, 1)
    }

    /// Issue 22 (audit L-7): one identity asking for quotes as fast as it can holds at most
    /// its share; every other client is still quoted; the flooder is told when to retry.
    func testOneClientHoldsAtMostItsShareOfTheBook() throws {
        let clock = TestClock(Fixtures.now)
        var book = QuoteBook(clock: clock, perClientCapacity: 100)
        let offer = Fixtures.offer(validUntil: Fixtures.now + 10_000)
        let flooder = Fixtures.stranger.pubky
        for index in 0..<100 {
            _ = try book.issue(for: request(), client: flooder, offer: offer, lockableSat: 500_000, quoteID: "f\(index)")
            if index == 49 { clock.advance(by: 10) }
        }
        XCTAssertOffersError(.tooManyQuotesForPeer(limit: 100, retryAfterSeconds: 291)) {
            try book.issue(for: request(), client: flooder, offer: offer, lockableSat: 500_000, quoteID: "f-more")
        }
        XCTAssertEqual(OffersError.tooManyQuotesForPeer(limit: 100, retryAfterSeconds: 1).rejectCode, .rateLimited)
        XCTAssertNoThrow(try book.issue(for: request(), client: client, offer: offer, lockableSat: 500_000, quoteID: "honest"))
        // Once the first fifty expire, the flooder may ask for fifty more, not more.
        clock.advance(by: 291)
        for index in 0..<50 {
            _ = try book.issue(for: request(), client: flooder, offer: offer, lockableSat: 500_000, quoteID: "g\(index)")
        }
        XCTAssertThrowsError(try book.issue(for: request(), client: flooder, offer: offer, lockableSat: 500_000,
                                            quoteID: "g-more"))
    }
}
