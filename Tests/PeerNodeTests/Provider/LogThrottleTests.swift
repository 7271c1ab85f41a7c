@testable import PeerNode
import Transport
import XCTest

/// Issue 22: lines a peer's messages cause are budgeted per peer, with a summary of what
/// was dropped; other peers keep their own budget.
final class LogThrottleTests: XCTestCase {
    private let flooder = NodeIdentity(seed: try! NodeSeed(bytes: [UInt8](repeating: 0x31, count: 32))).pubky
    private let other = NodeIdentity(seed: try! NodeSeed(bytes: [UInt8](repeating: 0x32, count: 32))).pubky

    func testAFloodingPeerGetsItsBudgetThenASummary() {
        var throttle = LogThrottle(perWindow: 10, windowSeconds: 60)
        var allowed = 0
        for _ in 0..<10_000 where throttle.admit(flooder, now: 1_000).allowed { allowed += 1 }
        XCTAssertEqual(allowed, 10)
        XCTAssertTrue(throttle.admit(other, now: 1_001).allowed, "another peer has its own budget")
        let next = throttle.admit(flooder, now: 1_060)
        XCTAssertTrue(next.allowed, "a new window")
        XCTAssertEqual(next.summary, ["9990 log lines dropped from \(flooder) in the last 60 s"])
    }

    func testFreshIdentitiesShareOneBudgetPastTheTrackedCount() {
        var throttle = LogThrottle(perWindow: 5, windowSeconds: 60, maxPeers: 3)
        var allowed = 0
        for byte in 0..<50 {
            let peer = NodeIdentity(seed: try! NodeSeed(bytes: [UInt8](repeating: UInt8(0x40 + byte), count: 32))).pubky
            if throttle.admit(peer, now: 10).allowed { allowed += 1 }
        }
        XCTAssertEqual(allowed, 3 + 5, "three tracked peers, then one shared budget of five")
    }
}
