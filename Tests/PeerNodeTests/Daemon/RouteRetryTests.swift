import Offers
@testable import PeerNode
import Transport
import XCTest

/// `RouteRetry`: which failures a payment gets past, and how. The first refusal of an offer
/// asks every contact again and passes nobody over; any other failure of a quote, and a
/// refusal of a fresh offer, passes its provider over, so a ranking is gone through once.
final class RouteRetryTests: XCTestCase {
    private let providers = (1...3).map { try! NodeIdentity(seed: NodeSeed(bytes: [UInt8](repeating: $0, count: 32))).pubky }
    private let stale = ClientEngineError.rejected(.insufficientLiquidity, reason: "0 sat")

    func testDuringTheQuoteEveryFailureOfTheProvidersIsGotPastAfterItOnlyAStaleOffer() {
        let providerFailures: [ClientEngineError] = [stale, .rejected(.rateLimited, reason: "busy"),
                                                     .offers(.unexpectedReply), .provider("no answer")]
        for error in providerFailures {
            XCTAssertTrue(RouteRetry.getsPast(error, duringQuote: true), "\(error)")
        }
        XCTAssertTrue(RouteRetry.getsPast(stale, duringQuote: false))
        for error in providerFailures.dropFirst() {
            XCTAssertFalse(RouteRetry.getsPast(error, duringQuote: false), "after the quote the swap is recorded: \(error)")
        }
        // The node's own limits are no provider's fault: another provider would not help.
        let own: [ClientEngineError] = [.insufficientBalance(balanceSat: 1, neededSat: 2), .feeEstimate("none"),
                                        .claimNotViable("dust"), .unsupportedDestination("bad")]
        for error in own {
            XCTAssertFalse(RouteRetry.getsPast(error, duringQuote: true), "\(error)")
        }
    }

    func testTheFirstStaleRefusalAsksAgainAndKeepsTheRefuserInTheRunning() {
        var retry = RouteRetry()
        XCTAssertEqual(retry.failed(providers[0], stale), .askAgain)
        XCTAssertTrue(retry.askedAgain)
        XCTAssertEqual(retry.choice(of: providers) { $0 }, providers[0], "its fresh offer says what it can do now")
        XCTAssertEqual(retry.failed(providers[0], stale), .passOver)
        XCTAssertEqual(retry.choice(of: providers) { $0 }, providers[1])
        XCTAssertEqual(retry.passedOver[providers[0]], "refused what its fresh offer promised (insufficient_liquidity: 0 sat)")
    }

    func testOtherFailuresPassEachProviderOverOnceUntilNoneIsLeft() {
        var retry = RouteRetry()
        var tried: [Pubky] = []
        while let next = retry.choice(of: providers, provider: { $0 }) {
            tried.append(next)
            XCTAssertEqual(retry.failed(next, .provider("no answer from \(next)")), .passOver)
        }
        XCTAssertEqual(tried, providers, "each provider tried once, in rank order")
        XCTAssertFalse(retry.askedAgain, "only a refused offer makes the contacts be asked again")
        XCTAssertEqual(retry.lastFailure, .provider("no answer from \(providers[2])"))
    }
}
