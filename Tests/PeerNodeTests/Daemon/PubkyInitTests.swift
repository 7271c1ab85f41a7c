import Foundation
import PeerNode
import Regtest
import TestSupport
import Transport
import XCTest

/// `peernode init --pubky-recovery-file`: the node's pubky becomes the Pubky identity of
/// pubky-core's sample file, which certifies the node's own key in a record published to a
/// real relay (the hub's, in this process) with the identity's other records kept; a wrong
/// passphrase or unreadable relays create nothing.
final class PubkyInitTests: XCTestCase {
    private static let sampleIdentity = "htbqf4wzp9c1qc5r77h86shpekcqop5icognmbwyb3szhkxnh5wy"

    private func run(_ arguments: [String], passphrase: String?) throws -> ProductOutcome {
        var environment: [String: String] = [:]
        if let passphrase {
            let file = NSTemporaryDirectory() + "peernode-passphrase-\(UUID().uuidString)"
            try Data(passphrase.utf8).write(to: URL(fileURLWithPath: file))
            environment["PEERNODE_PUBKY_PASSPHRASE_FILE"] = file
        }
        return try runProduct(try productExecutable("peernode"), arguments, environment: environment)
    }

    func testTheIdentityCertifiesTheNodeKeyAndKeepsItsOtherRecords() async throws {
        let loop = try EventLoop()
        let relay = try await PkarrRelayService.start(loop: loop)
        let root = try DaemonFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        // The identity already has a packet: a homeserver record, which must survive.
        let identity = try PubkyRecoveryFile.open([UInt8](try Vectors.data("pubky/sample_recovery.key")), passphrase: [])
        XCTAssertEqual(identity.pubky.z32, Self.sampleIdentity)
        let homeserver = DNSRecord(name: try SignedPacket.zone(of: identity.pubky).child("_pubky"), ttl: 3600,
                                   data: .svcb(.alias(to: try DNSName("homeserver.example"))))
        let before = try SignedPacket.sign(DNSPacket(answers: [homeserver]), by: identity, timestamp: 1_000)
        let put = relay.relay.respond(to: HTTPRequest(method: .put, target: "/" + identity.pubky.z32, body: before.relayPayload))
        XCTAssertEqual(put.status, .noContent)

        let datadir = root + "/node"
        let made = try run(["init", "--datadir", datadir, "--network", "regtest", "--json",
                            "--pubky-recovery-file", Vectors.url("pubky/sample_recovery.key").path,
                            "--pkarr-relay", relay.url], passphrase: "")
        XCTAssertEqual(made.status, 0, made.stderr)
        let printed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(printed["pubky"] as? String, Self.sampleIdentity)
        let seed = try Data(contentsOf: URL(fileURLWithPath: datadir + "/seed"))
        let node = NodeIdentity(seed: try NodeSeed(bytes: Array(seed))).pubky
        XCTAssertEqual(printed["node_pubky"] as? String, node.z32)
        XCTAssertEqual((printed["pkarr_published"] as? [[String: String]])?.first?["outcome"], "published")

        // The relay holds the identity's new packet: the homeserver kept, the node named.
        let held = relay.relay.respond(to: HTTPRequest(method: .get, target: "/" + identity.pubky.z32))
        let packet = try SignedPacket(pubky: identity.pubky, relayPayload: held.body)
        XCTAssertGreaterThan(packet.timestamp, before.timestamp)
        XCTAssertTrue(packet.packet.answers.contains(homeserver))
        XCTAssertEqual(PeernodeRecords.delegate(in: packet), node)
        // The same packet is in the data directory, and the daemon's check accepts it.
        XCTAssertEqual(try PubkyIdentityFile.load(datadir: datadir, node: node), packet)
        XCTAssertThrowsError(try PubkyIdentityFile.load(datadir: datadir, node: identity.pubky)) { error in
            XCTAssertEqual((error as? DaemonError)?.code, "pubky_identity")
        }
        // Nothing secret was printed or written: not the seed, not the identity's key.
        XCTAssertFalse(made.stdout.contains(seed.map { String(format: "%02x", $0) }.joined()))
        XCTAssertFalse(FileManager.default.fileExists(atPath: datadir + "/sample_recovery.key"))
        await relay.stop()
        await loop.shutdown()
    }

    func testAWrongPassphraseCreatesNothing() throws {
        let root = try DaemonFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let datadir = root + "/node"
        let refused = try run(["init", "--datadir", datadir, "--network", "regtest",
                               "--pubky-recovery-file", Vectors.url("pubky/sample_recovery.key").path,
                               "--pkarr-relay", "http://127.0.0.1:9"], passphrase: "not it")
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("the recovery file did not open: the passphrase is wrong, or the file is damaged"),
                      refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: datadir))
    }

    func testUnreadableRelaysCreateNothing() throws {
        let root = try DaemonFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let datadir = root + "/node"
        // Port 9 (discard) on loopback: nothing listens, the connection is refused.
        let refused = try run(["init", "--datadir", datadir, "--network", "regtest",
                               "--pubky-recovery-file", Vectors.url("pubky/sample_recovery.key").path,
                               "--pkarr-relay", "http://127.0.0.1:9"], passphrase: "")
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("no pkarr relay could be read"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("nothing was created"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: datadir))
    }

    func testUsageErrors() throws {
        let root = try DaemonFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let datadir = root + "/node"
        let sample = Vectors.url("pubky/sample_recovery.key").path
        let cases: [([String], String)] = [
            (["--pubky-recovery-file", sample], "needs --pkarr-relay"),
            (["--pubky-recovery-file", sample, "--pkarr-relay", "https://relay.pkarr.org"], "uses https"),
            (["--pkarr-relay", "http://127.0.0.1:9"], "--pkarr-relay goes with --pubky-recovery-file"),
            (["--pubky-recovery-file", root + "/missing", "--pkarr-relay", "http://127.0.0.1:9"], "cannot be read"),
        ]
        for (extra, expected) in cases {
            let refused = try run(["init", "--datadir", datadir, "--network", "regtest"] + extra, passphrase: "")
            XCTAssertEqual(refused.status, 2, "\(extra): \(refused.stderr)")
            XCTAssertTrue(refused.stderr.contains(expected), "\(extra): \(refused.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: datadir))
        }
    }
}
