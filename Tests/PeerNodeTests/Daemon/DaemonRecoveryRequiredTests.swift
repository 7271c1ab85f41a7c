import Foundation
import PeerNode
import Transport
import XCTest

/// Audit H-5 at the daemon: a database lost beside an existing seed makes `pay`,
/// `swap-out` and `quote` wait for a recovery scan, and the scan lets them run again.
final class DaemonRecoveryRequiredTests: XCTestCase {
    private static let engines = NodeEngines.factory(settings: NodeEngines.Settings(followerPollMilliseconds: 100))

    func testALostDatabaseRefusesClientSwapsUntilRecoverHasRun() async throws {
        let fixture = try await DaemonFixture()
        do {
            let (datadir, _) = try await fixture.dataDirectory("node")
            let quoteArgs: [String: JSONValue] = ["amount_sat": .integer(20_000)]

            let first = try await fixture.start(datadir, engines: Self.engines)
            if case .failure(let error) = try await first.call("quote", quoteArgs) {
                XCTAssertNotEqual(error.code, RecoveryRequiredError.code, "a node with its database swaps as usual")
            }
            try await first.stop()
            let markPath = datadir + "/" + SwapIndexMark.fileName
            XCTAssertEqual(try String(contentsOfFile: markPath, encoding: .utf8), "0\n", "init wrote the mark beside the seed")

            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: datadir + "/peernode.db" + suffix) }
            let second = try await fixture.start(datadir, engines: Self.engines)
            for (command, args) in [("quote", quoteArgs), ("swap-out", quoteArgs),
                                    ("pay", ["contact": .string("carol"), "amount_sat": .integer(20_000)])] {
                guard case .failure(let error) = try await second.call(command, args) else {
                    XCTFail("\(command) ran on a database made anew")
                    continue
                }
                XCTAssertEqual(error.code, RecoveryRequiredError.code, command)
                XCTAssertTrue(error.message.contains("`peernode recover`"), error.message)
                XCTAssertTrue(error.message.contains("\(command) is refused"), error.message)
            }

            let recovered = try await second.result("recover")
            XCTAssertEqual(recovered["recovery_required_cleared"], .bool(true))
            if case .failure(let error) = try await second.call("quote", quoteArgs) {
                XCTAssertNotEqual(error.code, RecoveryRequiredError.code, "the scan cleared the flag")
            }
            try await second.stop()

            // The flag stays cleared across a restart: only a new or stale database sets it.
            let third = try await fixture.start(datadir, engines: Self.engines)
            if case .failure(let error) = try await third.call("quote", quoteArgs) {
                XCTAssertNotEqual(error.code, RecoveryRequiredError.code)
            }
            let again = try await third.result("recover")
            XCTAssertEqual(again["recovery_required_cleared"], .bool(false))
            try await third.stop()
        } catch {
            await fixture.shutDown()
            throw error
        }
        await fixture.shutDown()
    }
}
