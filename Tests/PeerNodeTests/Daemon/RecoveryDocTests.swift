import Foundation
import PeerNode
import XCTest

/// docs/RECOVERY.md is what a user reads after losing the database: it must name the file
/// `peernode init` really creates (it named `peernode.sqlite`; the file is `peernode.db`).
final class RecoveryDocTests: XCTestCase {
    func testRecoveryDocNamesTheDatabaseFileInitCreates() async throws {
        let root = try DaemonFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        _ = try await DataDirectory.initialize(datadir: root + "/node", network: .regtest)
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/node/" + NodeConfig.storeFileName))

        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let doc = try String(contentsOf: repository.appendingPathComponent("docs/RECOVERY.md"), encoding: .utf8)
        XCTAssertTrue(doc.contains("(`\(NodeConfig.storeFileName)`)"), "RECOVERY.md does not name \(NodeConfig.storeFileName)")
        XCTAssertFalse(doc.contains(".sqlite"), "RECOVERY.md names a database file the node does not write")
    }
}
