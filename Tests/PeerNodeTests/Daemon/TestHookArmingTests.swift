#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Bitcoin
import Foundation
@testable import PeerNode
import XCTest

/// Every test hook reads its variable through `TestHookArming.fromEnvironment`: unset, it
/// is off and says nothing; on another network than regtest it is refused with a log line;
/// malformed, refused with a log line; well-formed on regtest, armed with a log line. The
/// lines are pinned: the daemon's operators and the testnet runner read them.
final class TestHookArmingTests: XCTestCase {
    private final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        var all: [String] { lock.withLock { lines } }
        func append(_ line: String) { lock.withLock { lines.append(line) } }
    }

    /// Runs `body` with `key` set to `value` (unset when nil), then restores it.
    private func with<T>(_ key: String, _ value: String?, _ body: (DaemonLog) -> T) -> (T, [String]) {
        let before = getenv(key).map { String(cString: $0) }
        if let value { setenv(key, value, 1) } else { unsetenv(key) }
        defer { if let before { setenv(key, before, 1) } else { unsetenv(key) } }
        let lines = Lines()
        let result = body(DaemonLog { lines.append($0) })
        return (result, lines.all)
    }

    func testLockFault() {
        let key = LockFault.environmentKey
        XCTAssertEqual(with(key, nil) { LockFault.fromEnvironment(network: .regtest, log: $0) }.1, [])
        let (armed, armedLines) = with(key, "short:5") { LockFault.fromEnvironment(network: .regtest, log: $0) }
        XCTAssertEqual(armed, .short(sat: 5))
        XCTAssertEqual(armedLines, ["lock fault armed: the provider misbehaves with PEERNODE_TEST_LOCK=short:5 (test use only)"])
        let (mainnet, mainnetLines) = with(key, "never") { LockFault.fromEnvironment(network: .mainnet, log: $0) }
        XCTAssertNil(mainnet)
        XCTAssertEqual(mainnetLines, ["lock fault refused: PEERNODE_TEST_LOCK is set but the network is mainnet; test hooks exist "
                                      + "only on regtest"])
        let (typo, typoLines) = with(key, "shrt:5") { LockFault.fromEnvironment(network: .regtest, log: $0) }
        XCTAssertNil(typo)
        XCTAssertEqual(typoLines, ["lock fault refused: PEERNODE_TEST_LOCK=shrt:5 is not short:<sat>, never or push-only"])
    }

    func testTestClock() {
        let key = TestClock.environmentKey
        XCTAssertEqual(with(key, "") { TestClock.fromEnvironment(network: .regtest, log: $0) }.1, [])
        let (armed, armedLines) = with(key, "hub") { TestClock.fromEnvironment(network: .regtest, log: $0) }
        XCTAssertEqual(armed, .hub)
        XCTAssertEqual(armedLines, ["test clock armed: time is the regtest hub's hub_clock (PEERNODE_TEST_CLOCK=hub, test use only)"])
        let (typo, typoLines) = with(key, "wall") { TestClock.fromEnvironment(network: .regtest, log: $0) }
        XCTAssertNil(typo)
        XCTAssertEqual(typoLines, ["test clock refused: PEERNODE_TEST_CLOCK=wall is not hub; the wall clock is used"])
    }

    func testCrashPoint() throws {
        let key = CrashPoint.environmentKey
        let store = try SQLiteSwapStore.openInMemory()
        let (off, offLines) = with(key, nil) { CrashPoint.store(wrapping: store, network: .regtest, log: $0) }
        XCTAssertTrue(off is SQLiteSwapStore, "unset: the store as is")
        XCTAssertEqual(offLines, [])
        let (armed, armedLines) = with(key, "provider:onchain_to_ln:paid") {
            CrashPoint.store(wrapping: store, network: .regtest, log: $0)
        }
        XCTAssertEqual((armed as? CrashingSwapStore)?.point.description, "provider:onchain_to_ln:paid")
        XCTAssertEqual(armedLines, ["crash point armed: SIGKILL right after provider:onchain_to_ln:paid is stored "
                                    + "(PEERNODE_TEST_CRASH_AFTER; test use only)"])
        let (signet, signetLines) = with(key, "client:paid") { CrashPoint.store(wrapping: store, network: .signet, log: $0) }
        XCTAssertTrue(signet is SQLiteSwapStore)
        XCTAssertEqual(signetLines, ["crash point refused: PEERNODE_TEST_CRASH_AFTER is set but the network is signet; test "
                                     + "hooks exist only on regtest"])
    }

    func testSubmarineLockFaultAndCoopFault() {
        let (short, shortLines) = with(SubmarineLockFault.environmentKey, "short:1") {
            SubmarineLockFault.fromEnvironment(network: .regtest, log: $0)
        }
        XCTAssertNotNil(short)
        XCTAssertEqual(shortLines, ["submarine lock fault armed: the client locks less than agreed with "
                                    + "PEERNODE_TEST_SUBMARINE_LOCK=short:1 (test use only)"])
        let (coop, coopLines) = with(CoopFault.environmentKey, "silent") { CoopFault.fromEnvironment(network: .regtest, log: $0) }
        XCTAssertEqual(coop, .silent)
        XCTAssertEqual(coopLines, ["cooperation fault armed: the provider does not co-sign (PEERNODE_TEST_COOP=silent; test use only)"])
        let (refused, refusedLines) = with(CoopFault.environmentKey, "quiet") {
            CoopFault.fromEnvironment(network: .regtest, log: $0)
        }
        XCTAssertNil(refused)
        XCTAssertEqual(refusedLines, ["cooperation fault refused: PEERNODE_TEST_COOP=quiet is not refuse or silent"])
    }
}
