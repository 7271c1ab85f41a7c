import Bitcoin
import PeerNode
import XCTest

/// `PEERNODE_TEST_COOP`: what it parses and that it arms only on regtest. The refusal and
/// the silence themselves are exercised by `EndToEndCoopClaimTests` and the testnet
/// runner's `coop-refused` and `coop-silent` on the real binary.
final class CoopFaultTests: XCTestCase {
    func testArmsRefuseOrSilentOnlyOnRegtest() {
        XCTAssertEqual(CoopFault.arming("refuse", network: .regtest), .armed(.refuse))
        XCTAssertEqual(CoopFault.arming("silent", network: .regtest), .armed(.silent))
        XCTAssertEqual(CoopFault.arming(nil, network: .regtest), .off)
        XCTAssertEqual(CoopFault.arming("", network: .regtest), .off)
        for network in Network.allCases where network != .regtest {
            guard case .refused(let reason) = CoopFault.arming("refuse", network: network) else {
                return XCTFail("armed on \(network)")
            }
            XCTAssertTrue(reason.contains("only on regtest"), reason)
        }
        for bad in ["Refuse", "refuse:1", "quiet", "silent "] {
            guard case .refused(let reason) = CoopFault.arming(bad, network: .regtest) else { return XCTFail(bad) }
            XCTAssertTrue(reason.contains("refuse or silent"), reason)
        }
    }
}
