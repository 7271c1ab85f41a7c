import Bitcoin
import PeerNode
import XCTest

/// `PEERNODE_TEST_CRASH_AFTER`: what it parses, and that it arms only on regtest. The
/// kill itself is exercised by the testnet runner's `crash-*` scenarios on the real binary.
final class CrashPointTests: XCTestCase {
    func testParsesEveryStateOfEachRole() {
        for phase in ClientSwapPhase.allCases {
            XCTAssertEqual(CrashPoint.parse("client:\(phase.rawValue)")?.description, "client:\(phase.rawValue)")
        }
        for kind in ProviderSwapState.Kind.allCases.map(\.rawValue) + SubmarineProviderState.Kind.allCases.map(\.rawValue) {
            let point = CrashPoint.parse("provider:\(kind)")
            XCTAssertEqual(point?.role, .provider)
            XCTAssertEqual(point?.kind, kind)
        }
    }

    func testRefusesMalformedValues() {
        for bad in ["", "client", "client:", ":quoted", "server:quoted", "client:settled", "provider:pay_started",
                    "client:quoted:extra", "Client:quoted", "client: quoted"] {
            XCTAssertNil(CrashPoint.parse(bad), bad)
        }
    }

    func testArmsOnlyOnRegtest() {
        XCTAssertEqual(CrashPoint.arming("client:pay_started", network: .regtest),
                       .armed(CrashPoint.parse("client:pay_started")!))
        for network in Network.allCases where network != .regtest {
            guard case .refused(let reason) = CrashPoint.arming("client:pay_started", network: network) else {
                return XCTFail("armed on \(network)")
            }
            XCTAssertTrue(reason.contains(network.rawValue), reason)
        }
    }

    func testUnsetOrEmptyIsOffAndTyposAreRefused() {
        XCTAssertEqual(CrashPoint.arming(nil, network: .regtest), .off)
        XCTAssertEqual(CrashPoint.arming("", network: .regtest), .off)
        guard case .refused(let reason) = CrashPoint.arming("client:payed", network: .regtest) else {
            return XCTFail("a typo must be refused, not ignored")
        }
        XCTAssertTrue(reason.contains("PEERNODE_TEST_CRASH_AFTER"), reason)
    }
}
