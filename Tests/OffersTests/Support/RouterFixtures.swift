@testable import Offers
import Transport
import XCTest

/// The provider side of the router tests: a desk with given fees, and the quote a chosen
/// provider gives over a connection.
enum RouterFixtures {
    /// A provider desk charging `base` sat plus `ppm`, with 5,000,000 sat of liquidity.
    static func desk(_ identity: NodeIdentity, base: Int64, ppm: Int64, clock: TestClock) -> ProviderDesk {
        ProviderDesk(identity: identity, terms: ProviderTerms(network: .regtest, feeModel: FeeModel(baseFeeSat: base, feePPM: ppm)),
                     clock: clock) {
            ProviderState(liquiditySat: 5_000_000, feeRate: Fixtures.rate(2))
        }
    }

    /// Asks `choice`'s provider for a quote over `connection`: the quote passes policy, covers
    /// the invoice total, is the one live quote at `desk`, and is bound to the client the
    /// handshake authenticated (a stranger cannot redeem it, the client can).
    static func assertQuoteBoundToClient(over connection: PeerConnection, choice: RouteCandidate, provider: Pubky,
                                         desk: ProviderDesk, requestID: String, nowUnix: UInt64,
                                         file: StaticString = #filePath, line: UInt = #line) async throws -> Quote {
        let request = QuoteRequest(requestID: requestID, offerID: choice.provider.terms.offerID,
                                   amountSat: choice.lockAmountSat)
        let reply = try await connection.request(request.encoded, id: request.requestID)
        let quote = try QuotePolicy().check(try Signed<Quote>(bytes: reply), answering: request, provider: provider,
                                            offer: choice.provider.terms, nowUnix: nowUnix)
        XCTAssertEqual(quote.totalSat, choice.invoiceTotalSat, file: file, line: line)
        let live = await desk.liveQuotes
        XCTAssertEqual(live, 1, file: file, line: line)
        await XCTAssertThrowsAsync(try await desk.redeem(quoteID: quote.quoteID, client: Fixtures.stranger.pubky),
                                   file: file, line: line)
        let redeemed = try await desk.redeem(quoteID: quote.quoteID, client: Fixtures.client.pubky)
        XCTAssertEqual(redeemed, quote, file: file, line: line)
        return quote
    }
}
