import HTLC
@testable import Offers
import Synchronization
import Transport
import XCTest

/// The provider's answers to OfferRequest and QuoteRequest, and its Rejects.
final class ProviderDeskTests: XCTestCase {
    private final class Wallet: Sendable {
        let liquidity = Atomic<Int64>(5_000_000)
        var state: ProviderState { ProviderState(liquiditySat: liquidity.load(ordering: .relaxed), feeRate: Fixtures.rate(2)) }
    }

    private func desk(_ wallet: Wallet, clock: TestClock = TestClock(Fixtures.now)) -> ProviderDesk {
        ProviderDesk(identity: Fixtures.provider, terms: ProviderTerms(network: .regtest), clock: clock) { wallet.state }
    }

    private func ask(_ desk: ProviderDesk, _ message: some SwapMessageBody) async throws -> SwapMessage {
        let reply = await desk.answer(message.encoded, from: Fixtures.client.pubky)
        return try SwapMessage(bytes: try XCTUnwrap(reply))
    }

    func testOffersAreSignedAndKeepTheirIDWhileTheStateHolds() async throws {
        let wallet = Wallet()
        let desk = desk(wallet)
        guard case .offer(let first) = try await ask(desk, OfferRequest(requestID: "a", network: "regtest")) else {
            return XCTFail("an offer")
        }
        XCTAssertNoThrow(try first.verify(by: Fixtures.provider.pubky))
        XCTAssertEqual(first.body.requestID, "a")
        XCTAssertEqual(first.body.maxAmountSat, 1_000_000)
        guard case .offer(let second) = try await ask(desk, OfferRequest(requestID: "b")) else { return XCTFail("an offer") }
        XCTAssertEqual(second.body.offerID, first.body.offerID)
        XCTAssertEqual(second.body.requestID, "b")
        wallet.liquidity.store(200_000, ordering: .relaxed)
        guard case .offer(let third) = try await ask(desk, OfferRequest(requestID: "c")) else { return XCTFail("an offer") }
        XCTAssertNotEqual(third.body.offerID, first.body.offerID, "a new state is a new offer")
        XCTAssertEqual(third.body.maxAmountSat, 200_000 - 745)
        // A quote under the older, still valid, offer keeps its terms but checks liquidity now.
        guard case .reject(let short) = try await ask(desk, QuoteRequest(requestID: "q", offerID: first.body.offerID,
                                                                         amountSat: 500_000)) else {
            return XCTFail("a reject")
        }
        XCTAssertEqual(short.code, .insufficientLiquidity)
    }

    func testRejects() async throws {
        let wallet = Wallet()
        let desk = desk(wallet)
        guard case .reject(let version) = try await ask(desk, OfferRequest(requestID: "a", protocolVersion: 2)) else {
            return XCTFail("a reject")
        }
        XCTAssertEqual(version, Reject(requestID: "a", code: .unsupportedVersion,
                                       reason: OffersError.unsupportedVersion(2).description))
        guard case .reject(let network) = try await ask(desk, OfferRequest(requestID: "b", network: "mainnet")) else {
            return XCTFail("a reject")
        }
        XCTAssertEqual(network.code, .notFound)
        guard case .reject(let unknown) = try await ask(desk, QuoteRequest(requestID: "c", offerID: "nope", amountSat: 50_000)) else {
            return XCTFail("a reject")
        }
        XCTAssertEqual(unknown.code, .notFound)
        let malformed = await desk.answer(Array(#"{"type":"QuoteRequest","request_id":"d","offer_id":"x"}"#.utf8),
                                          from: Fixtures.client.pubky)
        XCTAssertEqual(try Reject(bytes: try XCTUnwrap(malformed)).code, .invalidRequest)
        XCTAssertEqual(try Reject(bytes: try XCTUnwrap(malformed)).requestID, "d")
        wallet.liquidity.store(10_000, ordering: .relaxed)
        guard case .reject(let poor) = try await ask(desk, OfferRequest(requestID: "e")) else { return XCTFail("a reject") }
        XCTAssertEqual(poor.code, .insufficientLiquidity)
        // Not an offers message: left to the swap engine.
        let engine = await desk.answer(SwapStatusRequest(requestID: "f", swapID: "s").encoded, from: Fixtures.client.pubky)
        XCTAssertNil(engine)
        let strange = await desk.answer(Array(#"{"type":"Teapot","request_id":"g"}"#.utf8), from: Fixtures.client.pubky)
        XCTAssertNil(strange)
    }

    /// A refusal for capacity says when capacity returns: after the next block when coins
    /// wait for a confirmation (a provider's change held back by the cluster limits), or
    /// only once the wallet is funded. 14,730 sat is the smallest lock whose refund fits at
    /// the default fee cap (`ProviderTerms.effectiveMinAmountSat`).
    func testARefusalForCapacityNamesWhenItReturns() async throws {
        let waiting = Atomic<Int64>(1_500_000)
        let desk = ProviderDesk(identity: Fixtures.provider, terms: ProviderTerms(network: .regtest),
                                clock: TestClock(Fixtures.now)) {
            ProviderState(liquiditySat: 5_000, feeRate: Fixtures.rate(2), waitingSat: waiting.load(ordering: .relaxed))
        }
        guard case .reject(let soon) = try await ask(desk, OfferRequest(requestID: "a")) else { return XCTFail("a reject") }
        XCTAssertEqual(soon.code, .insufficientLiquidity)
        XCTAssertEqual(soon.reason, "the provider can lock 4,255 sat now, 14,730 sat needed; "
            + "1,500,000 sat more become lockable by the next block, as its pending transactions go out or confirm")
        waiting.store(0, ordering: .relaxed)
        guard case .reject(let never) = try await ask(desk, OfferRequest(requestID: "b")) else { return XCTFail("a reject") }
        XCTAssertEqual(never.reason, "the provider can lock 4,255 sat now, 14,730 sat needed; "
            + "nothing more is on the way until its wallet is funded")
    }

    func testQuotesAreBoundToTheAskingClientAndSingleUse() async throws {
        let clock = TestClock(Fixtures.now)
        let desk = desk(Wallet(), clock: clock)
        guard case .offer(let offer) = try await ask(desk, OfferRequest(requestID: "a")) else { return XCTFail("an offer") }
        let request = QuoteRequest(requestID: "q", offerID: offer.body.offerID, amountSat: 100_000)
        guard case .quote(let quote) = try await ask(desk, request) else { return XCTFail("a quote") }
        XCTAssertEqual(try QuotePolicy().check(quote, answering: request, provider: Fixtures.provider.pubky,
                                               offer: offer.body, nowUnix: clock.nowUnix).totalSat, 101_445)
        do {
            _ = try await desk.redeem(quoteID: quote.body.quoteID, client: Fixtures.stranger.pubky)
            XCTFail("foreign")
        } catch {
            XCTAssertEqual(error.rejectCode, .unknownQuote)
        }
        _ = try await desk.redeem(quoteID: quote.body.quoteID, client: Fixtures.client.pubky)
        do {
            _ = try await desk.redeem(quoteID: quote.body.quoteID, client: Fixtures.client.pubky)
            XCTFail("reused")
        } catch {
            XCTAssertEqual(error, .quoteAlreadyUsed)
        }
        guard case .quote(let late) = try await ask(desk, QuoteRequest(requestID: "r", offerID: offer.body.offerID,
                                                                       amountSat: 50_000)) else { return XCTFail("a quote") }
        clock.advance(by: 301)
        do {
            _ = try await desk.redeem(quoteID: late.body.quoteID, client: Fixtures.client.pubky)
            XCTFail("expired")
        } catch {
            XCTAssertEqual(error.rejectCode, .quoteExpired)
        }
    }
}
