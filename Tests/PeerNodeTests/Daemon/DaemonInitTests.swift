import Foundation
import PeerNode
import Transport
import XCTest

/// `peernode init`: the data directory, seed, config and store it makes, and its refusal
/// to overwrite a seed.
final class DaemonInitTests: XCTestCase {
    private func permissions(_ path: String) throws -> Int {
        try XCTUnwrap((FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue)
    }

    func testDaemonInitCreatesPrivateSeedConfigAndStore() async throws {
        let root = try DaemonFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let datadir = root + "/a/b"
        let made = try await DataDirectory.initialize(datadir: datadir, network: .regtest)
        XCTAssertTrue(made.wroteConfig)
        XCTAssertEqual(try permissions(datadir), 0o700)
        XCTAssertEqual(try permissions(datadir + "/seed"), 0o600)
        XCTAssertEqual(try permissions(datadir + "/peernode.conf"), 0o600)
        XCTAssertEqual(try permissions(datadir + "/peernode.db"), 0o600)
        let seed = try Data(contentsOf: URL(fileURLWithPath: datadir + "/seed"))
        XCTAssertEqual(seed.count, 32)
        // The pubky printed is the seed's.
        XCTAssertEqual(NodeIdentity(seed: try NodeSeed(bytes: Array(seed))).pubky, made.pubky)
        XCTAssertEqual(try DataDirectory.loadSeed(datadir: datadir).description, "NodeSeed(redacted)")
        let config = try String(contentsOfFile: datadir + "/peernode.conf", encoding: .utf8)
        XCTAssertTrue(config.contains("\nnetwork=regtest\n"))
        XCTAssertTrue(config.contains("#fee_ppm=2000"))
        let store = try SQLiteSwapStore.open(path: datadir + "/peernode.db")
        let got1 = try await store.contacts()
        XCTAssertEqual(got1, [])
        await store.close()
    }

    /// Issue 22: a config file in another encoding says which line and what to do.
    func testAConfigThatIsNotUTF8SaysWhereAndWhatToDo() async throws {
        let root = try DaemonFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let datadir = root + "/d"
        _ = try await DataDirectory.initialize(datadir: datadir, network: .regtest)
        let bytes = Array("network=regtest\nbitcoind_rpc_user=u\nbitcoind_rpc_password=p".utf8) + [0xe9] + Array("\n".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: datadir + "/peernode.conf"))
        XCTAssertThrowsError(try DataDirectory.loadConfig(datadir: datadir, overrides: [], allowUnsafe: false)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("line 3"), text)
            XCTAssertTrue(text.contains("save the file as UTF-8"), text)
            XCTAssertEqual((error as? DaemonError)?.exitCode, 4)
        }
    }

    func testDaemonInitRefusesToOverwriteASeed() async throws {
        let root = try DaemonFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        _ = try await DataDirectory.initialize(datadir: root, network: .regtest)
        let seed = try Data(contentsOf: URL(fileURLWithPath: root + "/seed"))
        try Data("network=signet\n".utf8).write(to: URL(fileURLWithPath: root + "/peernode.conf"))
        do {
            _ = try await DataDirectory.initialize(datadir: root, network: .regtest)
            XCTFail("overwrote a seed")
        } catch {
            XCTAssertEqual(error, .seedExists(path: root + "/seed"))
            XCTAssertEqual(error.exitCode, 4)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: root + "/seed")), seed)
        XCTAssertEqual(try String(contentsOfFile: root + "/peernode.conf", encoding: .utf8), "network=signet\n")
    }

    func testDaemonRefusesASeedOthersCanRead() async throws {
        let root = try DaemonFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        _ = try await DataDirectory.initialize(datadir: root, network: .regtest)
        chmod(root + "/seed", 0o644)
        XCTAssertThrowsError(try DataDirectory.loadSeed(datadir: root)) { error in
            XCTAssertTrue("\(error)".contains("chmod 600"), "\(error)")
        }
    }
}
