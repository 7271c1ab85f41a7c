import Bitcoin
import PeerNode
import XCTest

/// `PEERNODE_TEST_LOCK`: what it parses, the amount it makes the provider lock, and that it
/// arms only on regtest. The misbehaviour itself is exercised by the testnet runner's
/// adversary scenarios (`short-lock`, `never-locks`) on the real binary.
final class LockFaultTests: XCTestCase {
    func testParsesShortAndNever() {
        XCTAssertEqual(LockFault.parse("short:1000"), .short(sat: 1_000))
        XCTAssertEqual(LockFault.parse("short:1"), .short(sat: 1))
        XCTAssertEqual(LockFault.parse("never"), .never)
        XCTAssertEqual(LockFault.short(sat: 250).description, "short:250")
        XCTAssertEqual(LockFault.never.description, "never")
        XCTAssertEqual(LockFault.parse("push-only"), .pushOnly)
        XCTAssertEqual(LockFault.pushOnly.description, "push-only")
    }

    func testRefusesMalformedValues() {
        for bad in ["", "short", "short:", "short:0", "short:-5", "short:1.5", "short:1k", "short:1:2", "short: 10",
                    "Short:10", "NEVER", "never:", "push_only", "PUSH-ONLY", "long:10", "short:99999999999999999999"] {
            XCTAssertNil(LockFault.parse(bad), bad)
        }
    }

    func testLocksTheAgreedAmountLessTheShortfallOrNothing() {
        XCTAssertEqual(LockFault.short(sat: 1_000).lockAmount(agreed: 25_000), 24_000)
        XCTAssertNil(LockFault.never.lockAmount(agreed: 25_000))
        // push-only signs the agreed lock; it only never broadcasts it.
        XCTAssertEqual(LockFault.pushOnly.lockAmount(agreed: 25_000), 25_000)
        XCTAssertFalse(LockFault.pushOnly.broadcastsLock)
        XCTAssertTrue(LockFault.short(sat: 1).broadcastsLock)
    }

    func testArmsOnlyOnRegtest() {
        XCTAssertEqual(LockFault.arming("short:1000", network: .regtest), .armed(.short(sat: 1_000)))
        XCTAssertEqual(LockFault.arming("never", network: .regtest), .armed(.never))
        for network in Network.allCases where network != .regtest {
            guard case .refused(let reason) = LockFault.arming("never", network: network) else {
                return XCTFail("armed on \(network)")
            }
            XCTAssertTrue(reason.contains(network.rawValue), reason)
        }
    }

    func testUnsetOrEmptyIsOffAndTyposAreRefused() {
        XCTAssertEqual(LockFault.arming(nil, network: .regtest), .off)
        XCTAssertEqual(LockFault.arming("", network: .regtest), .off)
        guard case .refused(let reason) = LockFault.arming("short=1000", network: .regtest) else {
            return XCTFail("a typo must be refused, not ignored")
        }
        XCTAssertTrue(reason.contains("PEERNODE_TEST_LOCK") && reason.contains("short:<sat>, never or push-only"), reason)
    }
}
