@testable import PeerNode
import Transport
import XCTest

/// `QuoteFailures`: a provider that failed a quote is tried last for ten minutes, never
/// left out, and the memory stays bounded.
final class QuoteFailuresTests: XCTestCase {
    private func pubky(_ seed: UInt8) -> Pubky {
        try! NodeIdentity(seed: NodeSeed(bytes: [UInt8](repeating: seed, count: 32))).pubky
    }

    func testAProviderThatFailedIsTriedLastForTenMinutes() {
        let failures = QuoteFailures()
        let ranked = (1...3).map(pubky)
        failures.note(ranked[0], nowUnix: 1_000)
        let (order, moved) = failures.failedLast(ranked, nowUnix: 1_012) { $0 }
        XCTAssertEqual(order, [ranked[1], ranked[2], ranked[0]], "last, not left out")
        XCTAssertEqual(moved.map(\.0), [ranked[0]])
        XCTAssertEqual(moved.map(\.1), [12])
        XCTAssertEqual(failures.failedLast(ranked, nowUnix: 1_000 + QuoteFailures.holdSeconds - 1) { $0 }.ranked.last, ranked[0])
        XCTAssertEqual(failures.failedLast(ranked, nowUnix: 1_000 + QuoteFailures.holdSeconds) { $0 }.ranked, ranked,
                       "after ten minutes it ranks by its offer again")
    }

    func testTheMemoryKeepsTheNewestUpToItsCapacity() {
        let failures = QuoteFailures()
        let many = (0..<(QuoteFailures.capacity + 10)).map { index in
            try! NodeIdentity(seed: NodeSeed(bytes: [UInt8](repeating: 0, count: 30) + [UInt8(index >> 8), UInt8(index & 0xFF)])).pubky
        }
        for (index, provider) in many.enumerated() { failures.note(provider, nowUnix: 1_000 + UInt64(index)) }
        let now: UInt64 = 1_000 + UInt64(many.count)
        XCTAssertNil(failures.secondsSinceFailure(of: many[0], nowUnix: now), "the oldest went first")
        XCTAssertNotNil(failures.secondsSinceFailure(of: many[many.count - 1], nowUnix: now))
        XCTAssertEqual(many.filter { failures.secondsSinceFailure(of: $0, nowUnix: now) != nil }.count, QuoteFailures.capacity)
    }
}
