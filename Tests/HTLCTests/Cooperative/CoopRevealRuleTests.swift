@testable import HTLC
import XCTest

/// The preimage goes to the provider for cooperation only when the script-path claim is
/// still certain: the lock seen by our own node with its confirmations, and more than the
/// claim cutoff plus the margin of blocks left.
final class CoopRevealRuleTests: XCTestCase {
    private let rule = CoopRevealRule.default

    func testRevealNeedsMoreThanCutoffPlusMarginBlocks() throws {
        XCTAssertEqual(rule.claimCutoff + rule.margin, 12)
        XCTAssertNoThrow(try rule.check(timeoutHeight: 1_013, tipHeight: 1_000, lockConfirmations: 1, requiredConfirmations: 1,
                                        lockSeenByOwnNode: true))
        XCTAssertThrowsCoop(.revealNotSafe("12 blocks are left before the timeout; more than 12 are needed"),
                            try rule.check(timeoutHeight: 1_012, tipHeight: 1_000, lockConfirmations: 1, requiredConfirmations: 1,
                                           lockSeenByOwnNode: true))
        // A tip past the timeout is a negative count, not a wrap-around.
        XCTAssertThrowsCoop(.revealNotSafe("-5 blocks are left before the timeout; more than 12 are needed"),
                            try rule.check(timeoutHeight: 1_000, tipHeight: 1_005, lockConfirmations: 3, requiredConfirmations: 1,
                                           lockSeenByOwnNode: true))
    }

    func testRevealNeedsTheLockOnOurOwnNodeWithItsConfirmations() throws {
        XCTAssertThrowsCoop(.revealNotSafe("the lock was not found by this node's own chain source"),
                            try rule.check(timeoutHeight: 2_000, tipHeight: 1_000, lockConfirmations: 6, requiredConfirmations: 1,
                                           lockSeenByOwnNode: false))
        XCTAssertThrowsCoop(.revealNotSafe("the lock has 1 of its 2 required confirmations"),
                            try rule.check(timeoutHeight: 2_000, tipHeight: 1_000, lockConfirmations: 1, requiredConfirmations: 2,
                                           lockSeenByOwnNode: true))
        XCTAssertNoThrow(try CoopRevealRule(margin: 0).check(timeoutHeight: 1_007, tipHeight: 1_000, lockConfirmations: 0,
                                                             requiredConfirmations: 0, lockSeenByOwnNode: true))
    }
}
