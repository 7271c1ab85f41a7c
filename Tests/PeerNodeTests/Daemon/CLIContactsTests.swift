import Foundation
import PeerNode
import TestSupport
import Transport
import XCTest

/// Contacts are never silently rewritten (issue 14): `contacts add bob <carol's pubky>`
/// once renamed carol to bob, so `pay bob` paid carol, and a duplicate name came back as
/// "database error during save contact". Through the `peernode` binary against a daemon.
final class CLIContactsTests: XCTestCase {
    func testContactsAddRefusesRewritesWithExitTwoRenameAndReplaceWork() async throws {
        let fixture = try await DaemonFixture()
        let (datadir, _) = try await fixture.dataDirectory("contacts")
        let node = try await fixture.start(datadir)
        let executable = try productExecutable("peernode")
        func cli(_ arguments: [String]) throws -> ProductOutcome {
            try runProduct(executable, arguments + ["--datadir", datadir])
        }
        let carol = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 2, count: 32))).pubky.z32
        let dave = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 3, count: 32))).pubky.z32

        let added = try cli(["contacts", "add", "carol", carol, "127.0.0.1:9001"])
        XCTAssertEqual(added.status, 0, added.stderr)
        // <pubky>@<host:port> is read as the pubky and the address.
        let daveAdded = try cli(["contacts", "add", "dave", "\(dave)@127.0.0.1:9002"])
        XCTAssertEqual(daveAdded.status, 0, daveAdded.stderr)
        XCTAssertTrue(daveAdded.stdout.contains("saved dave (\(dave) at 127.0.0.1:9002)"), daveAdded.stdout)

        let renameByAdd = try cli(["contacts", "add", "bob", carol, "127.0.0.1:9001"])
        XCTAssertEqual(renameByAdd.status, 2, renameByAdd.stderr)
        XCTAssertTrue(renameByAdd.stderr.contains("already saved as \"carol\""), renameByAdd.stderr)
        XCTAssertTrue(renameByAdd.stderr.contains("`peernode contacts rename carol bob`"), renameByAdd.stderr)
        XCTAssertTrue(renameByAdd.stderr.contains("--replace"), renameByAdd.stderr)
        let nameTaken = try cli(["contacts", "add", "carol", dave, "127.0.0.1:9002"])
        XCTAssertEqual(nameTaken.status, 2, nameTaken.stderr)
        XCTAssertTrue(nameTaken.stderr.contains("the name \"carol\" is already used by pubky \(carol)"), nameTaken.stderr)
        XCTAssertFalse(nameTaken.stderr.contains("database error"), nameTaken.stderr)
        let json = try cli(["contacts", "add", "bob", carol, "127.0.0.1:9001", "--json"])
        XCTAssertEqual(json.status, 2)
        let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((parsed["error"] as? [String: Any])?["code"] as? String, "contact_conflict", json.stdout)

        var list = try cli(["contacts", "list"])
        XCTAssertTrue(list.stdout.contains("carol  \(carol)"), "nothing changed: \(list.stdout)")
        XCTAssertFalse(list.stdout.contains("bob"), list.stdout)

        let renamed = try cli(["contacts", "rename", "carol", "bob"])
        XCTAssertEqual(renamed.status, 0, renamed.stderr)
        XCTAssertTrue(renamed.stdout.contains("renamed \"carol\" to bob"), renamed.stdout)
        let renameTaken = try cli(["contacts", "rename", "bob", "dave"])
        XCTAssertEqual(renameTaken.status, 2)
        XCTAssertTrue(renameTaken.stderr.contains("the name \"dave\" is already used"), renameTaken.stderr)

        let replaced = try cli(["contacts", "add", "dave", carol, "127.0.0.1:9001", "--replace"])
        XCTAssertEqual(replaced.status, 0, replaced.stderr)
        list = try cli(["contacts", "list", "--json"])
        let contacts = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])?["contacts"]
                                     as? [[String: Any]])
        XCTAssertEqual(contacts.map { "\($0["name"] ?? "") \($0["pubky"] ?? "")" }, ["dave \(carol)"],
                       "--replace pointed dave at carol's pubky and dropped the old dave")
        // Times under --json: unix seconds in *_at, ISO 8601 (UTC) in *_at_iso (docs/CLI.md).
        let addedAt = try XCTUnwrap(contacts.first?["added_at"] as? Int)
        let iso = ISO8601DateFormatter()
        iso.timeZone = TimeZone(identifier: "UTC")
        XCTAssertEqual(contacts.first?["added_at_iso"] as? String, iso.string(from: Date(timeIntervalSince1970: TimeInterval(addedAt))))
        try await node.stop()
        await fixture.shutDown()
    }
}
