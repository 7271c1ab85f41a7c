import Bitcoin
@testable import PeerNode
import XCTest

/// `PEERNODE_TEST_SUBMARINE_LOCK`: what it parses, that it arms only on regtest, and what it
/// does to the client's machine: the lock it funds and broadcasts pays the agreed total less
/// the shortfall, which an honest client's machine never broadcasts. The misbehaviour end to
/// end (the provider never pays, the client refunds) is the testnet runner's
/// `submarine-short-lock` scenario.
final class SubmarineLockFaultTests: XCTestCase {
    typealias F = SubmarineClientFixture

    func testParsesShortOnlyAndRefusesMalformedValues() {
        XCTAssertEqual(SubmarineLockFault.parse("short:1000"), .short(sat: 1_000))
        XCTAssertEqual(SubmarineLockFault.parse("short:1"), .short(sat: 1))
        XCTAssertEqual(SubmarineLockFault.short(sat: 250).description, "short:250")
        XCTAssertEqual(SubmarineLockFault.short(sat: 250).shortfallSat, 250)
        for bad in ["", "short", "short:", "short:0", "short:-5", "short:1.5", "short:1k", "short:1:2", "short: 10",
                    "Short:10", "never", "push-only", "long:10", "short:99999999999999999999"] {
            XCTAssertNil(SubmarineLockFault.parse(bad), bad)
        }
    }

    func testArmsOnlyOnRegtestAndTyposAreRefused() {
        XCTAssertEqual(SubmarineLockFault.arming("short:1000", network: .regtest), .armed(.short(sat: 1_000)))
        XCTAssertEqual(SubmarineLockFault.arming(nil, network: .regtest), .off)
        XCTAssertEqual(SubmarineLockFault.arming("", network: .regtest), .off)
        for network in Network.allCases where network != .regtest {
            guard case .refused(let reason) = SubmarineLockFault.arming("short:1000", network: network) else {
                return XCTFail("armed on \(network)")
            }
            XCTAssertTrue(reason.contains(network.rawValue), reason)
        }
        guard case .refused(let reason) = SubmarineLockFault.arming("short=1000", network: .regtest) else {
            return XCTFail("a typo must be refused, not ignored")
        }
        XCTAssertTrue(reason.contains("PEERNODE_TEST_SUBMARINE_LOCK") && reason.contains("short:<sat>"), reason)
        // The engine's configuration drops a fault on any other network, whoever set it.
        XCTAssertNil(SubmarineClientConfiguration(network: .mainnet, lockFault: .short(sat: 1)).lockFault)
        XCTAssertEqual(SubmarineClientConfiguration(network: .regtest, lockFault: .short(sat: 1)).lockFault, .short(sat: 1))
    }

    func testTheFaultyMachineFundsAndBroadcastsAShortLockAnHonestOneNever() {
        let fixture = F()
        let total = fixture.quote.totalSat
        let accept = SubmarineClientInput.acceptReceived(fixture.signed(fixture.accept), tipHeight: F.acceptTip)
        var faulty = SubmarineClientMachine(settings: SubmarineClientMachine.Settings(
            terms: fixture.terms, finalityConfirmations: 2, testLockShortfallSat: 1_000))
        let funding = faulty.handle(accept)
        let asked = funding.compactMap { action -> Int64? in
            if case .fundLock(_, let amount) = action { return amount }
            return nil
        }
        XCTAssertEqual(asked, [total - 1_000], "asks for the agreed total less the shortfall")
        let short = fixture.funding(lockValue: total - 1_000)
        let broadcast = faulty.handle(.lockFunded(short))
        XCTAssertEqual(faulty.phase, .lockIntent)
        XCTAssertTrue(broadcast.contains(.broadcastLock(short)))

        var honest = SubmarineClientMachine(settings: fixture.settings())
        _ = honest.handle(accept)
        _ = honest.handle(.lockFunded(short))
        XCTAssertEqual(honest.phase, .abandoned, "a real client never broadcasts a short lock")
    }
}
