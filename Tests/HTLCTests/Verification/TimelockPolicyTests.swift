@testable import HTLC
import XCTest

/// DESIGN section 6, each inequality at its edge.
final class TimelockPolicyTests: XCTestCase {
    private let policy = try! TimelockPolicy(requiredConfirmations: 1, htlcTimeoutBlocks: 144)

    func testClientAcceptsATimeoutWithinSixOfTipPlusHTLCTimeout() throws {
        for timeout: UInt32 in [1138, 1144, 1150] {
            XCTAssertNoThrow(try policy.checkAccept(timeoutHeight: timeout, tipHeight: 1000), "\(timeout)")
        }
        XCTAssertThrows(.timeoutOutsideWindow(timeout: 1151, expected: 1144, tolerance: 6),
                        try policy.checkAccept(timeoutHeight: 1151, tipHeight: 1000))
        XCTAssertThrows(.timeoutOutsideWindow(timeout: 1137, expected: 1144, tolerance: 6),
                        try policy.checkAccept(timeoutHeight: 1137, tipHeight: 1000))
    }

    func testClientRefusesATimeoutTooCloseForConfirmationsPlus24() throws {
        // Regtest-sized: 20 blocks of timeout cannot leave 6 confirmations + 24.
        let short = try TimelockPolicy(requiredConfirmations: 6, htlcTimeoutBlocks: 20)
        XCTAssertThrows(.timeoutTooClose(blocksLeft: 20, required: 30), try short.checkAccept(timeoutHeight: 120, tipHeight: 100))
        let fits = try TimelockPolicy(requiredConfirmations: 6, htlcTimeoutBlocks: 30)
        XCTAssertNoThrow(try fits.checkAccept(timeoutHeight: 130, tipHeight: 100))
        XCTAssertThrows(.timeoutTooClose(blocksLeft: 29, required: 30), try fits.checkAccept(timeoutHeight: 129, tipHeight: 100))
    }

    func testFirstClaimOnlyWhileMoreThanSixBlocksAreLeft() {
        XCTAssertNoThrow(try policy.checkFirstClaim(timeoutHeight: 107, tipHeight: 100))
        XCTAssertThrows(.timeoutTooClose(blocksLeft: 6, required: 7), try policy.checkFirstClaim(timeoutHeight: 106, tipHeight: 100))
        XCTAssertThrows(.timeoutTooClose(blocksLeft: -5, required: 7), try policy.checkFirstClaim(timeoutHeight: 100, tipHeight: 105))
    }

    func testProviderLocksOnlyWithHTLCExpiryAndBlocksToSpare() {
        XCTAssertNoThrow(try policy.checkProviderLock(htlcExpiryHeight: 1186, timeoutHeight: 1144, tipHeight: 1000))
        XCTAssertThrows(.htlcExpiryTooEarly(expiry: 1185, required: 1186),
                        try policy.checkProviderLock(htlcExpiryHeight: 1185, timeoutHeight: 1144, tipHeight: 1000))
        XCTAssertNoThrow(try policy.checkProviderLock(htlcExpiryHeight: 1186, timeoutHeight: 1144, tipHeight: 1107))
        XCTAssertThrows(.timeoutTooClose(blocksLeft: 36, required: 37),
                        try policy.checkProviderLock(htlcExpiryHeight: 1186, timeoutHeight: 1144, tipHeight: 1108))
    }

    func testDefaultsAndLimits() throws {
        XCTAssertEqual(policy.timeoutHeight(tipHeight: 1000), 1144)
        XCTAssertEqual(policy.holdInvoiceFinalCLTVDelta, 144 + 72)
        XCTAssertThrows(.htlcTimeoutBlocksOutOfRange(1009, maximum: 1008),
                        try TimelockPolicy(requiredConfirmations: 1, htlcTimeoutBlocks: 1009))
        XCTAssertThrows(.htlcTimeoutBlocksOutOfRange(0, maximum: 1008),
                        try TimelockPolicy(requiredConfirmations: 1, htlcTimeoutBlocks: 0))
    }
}
