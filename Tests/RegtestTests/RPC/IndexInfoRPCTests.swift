import Bitcoin
import Regtest
import TestSupport
import XCTest

/// `getindexinfo` reports the two indexes ElectrumX 2.0 requires as synced at the tip, and
/// filters by name as Core does (an index that is not running is simply absent).
final class IndexInfoRPCTests: XCTestCase {
    func testBothIndexesAreSyncedAtTheTipAndTheNameFilters() async throws {
        let scenario = try HubScenario()
        defer { scenario.close() }
        try scenario.chain.mine(3, to: scenario.wallet.script)
        let all = try await scenario.call("getindexinfo")
        XCTAssertEqual(all.keys, ["txindex", "txospenderindex"])
        for name in all.keys {
            XCTAssertEqual(all[name]?["synced"], .bool(true), name)
            XCTAssertEqual(all[name]?["best_block_height"], .int(3), name)
        }
        let one = try await scenario.call("getindexinfo", "[\"txospenderindex\"]")
        XCTAssertEqual(one.keys, ["txospenderindex"])
        let absent = try await scenario.call("getindexinfo", "[\"coinstatsindex\"]")
        XCTAssertEqual(absent.compact, "{}")
    }
}
