@testable import PeerNode
import Transport
import XCTest

/// Issue 22: one peer's requests are limited to its share; others are not affected, and
/// the limited peer is told when to retry.
final class PeerRequestLimiterTests: XCTestCase {
    private func pubky(_ byte: UInt8) -> Pubky {
        NodeIdentity(seed: try! NodeSeed(bytes: [UInt8](repeating: byte, count: 32))).pubky
    }

    func testABurstThenTheRateAndOthersUnaffected() {
        let limiter = PeerRequestLimiter(perSecond: 10, burst: 20)
        let flooder = pubky(1), honest = pubky(2)
        var allowed = 0
        for _ in 0..<1_000 where limiter.take(flooder, nowMilliseconds: 5_000) == nil { allowed += 1 }
        XCTAssertEqual(allowed, 20, "the burst")
        XCTAssertEqual(limiter.take(flooder, nowMilliseconds: 5_000), 100, "one more in 100 ms at 10/s")
        XCTAssertNil(limiter.take(honest, nowMilliseconds: 5_000), "another peer has its own bucket")
        XCTAssertNil(limiter.take(flooder, nowMilliseconds: 5_100), "refilled after the wait")
        XCTAssertNotNil(limiter.take(flooder, nowMilliseconds: 5_100))
    }

    func testMemoryIsBoundedByTheTrackedPeers() {
        let limiter = PeerRequestLimiter(perSecond: 1, burst: 1, maxPeers: 3)
        for byte in UInt8(1)...UInt8(50) { _ = limiter.take(pubky(byte), nowMilliseconds: UInt64(byte)) }
        // The most recent are still tracked (empty buckets), the oldest forgotten (full again).
        XCTAssertNotNil(limiter.take(pubky(50), nowMilliseconds: 50))
        XCTAssertNil(limiter.take(pubky(1), nowMilliseconds: 51))
    }
}
