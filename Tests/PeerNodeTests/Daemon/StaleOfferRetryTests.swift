@testable import PeerNode
import Transport
import XCTest

/// `StaleOfferRetry`: the first refusal asks every contact again and passes nobody over;
/// each later one passes its provider over, so a ranking is gone through once at most.
final class StaleOfferRetryTests: XCTestCase {
    private let providers = (1...3).map { try! NodeIdentity(seed: NodeSeed(bytes: [UInt8](repeating: $0, count: 32))).pubky }

    func testTheFirstRefusalAsksAgainAndKeepsTheRefuserInTheRunning() {
        var retry = StaleOfferRetry()
        XCTAssertEqual(retry.choice(of: providers) { $0 }, providers[0])
        XCTAssertEqual(retry.refused(by: providers[0]), .askAgain)
        XCTAssertTrue(retry.askedAgain)
        // Its fresh offer says what it can do now: it is still the first choice.
        XCTAssertEqual(retry.choice(of: providers) { $0 }, providers[0])
    }

    func testLaterRefusalsPassEachProviderOverUntilNoneIsLeft() {
        var retry = StaleOfferRetry()
        _ = retry.refused(by: providers[0])
        var tried: [Pubky] = []
        while let next = retry.choice(of: providers, provider: { $0 }) {
            tried.append(next)
            XCTAssertEqual(retry.refused(by: next), .passOver)
        }
        XCTAssertEqual(tried, providers, "each provider tried once, in rank order")
        XCTAssertEqual(retry.passedOver, Set(providers))
    }
}
