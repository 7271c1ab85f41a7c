import Foundation
import Lightning
import Regtest
import TestSupport
import Transport
import XCTest

/// The hub's LND REST servers over TLS, as LND serves them: a fresh certificate per node in
/// `<dir>/<node>/tls.cert`, named in `hub_ln_addnode`'s answer; the node's own LND client
/// trusting only that file works, plain HTTP gets LND's refusal, and `plain_http` keeps one
/// node on plain HTTP.
final class RegtestHubTLSTests: XCTestCase {
    private var directory: String!

    override func setUp() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pn-hubtls-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func testEachNodeServesTLSWithItsOwnCertificateAndTheLNDClientTrustsOnlyIt() async throws {
        let harness = try await RegtestHubHarness(housekeepingMilliseconds: 600_000, tlsDirectory: directory)
        let alice = try await harness.addNode("alice", balanceSat: 100_000)
        let bob = try await harness.addNode("bob", balanceSat: 0)
        let alicePort = try XCTUnwrap(alice["rest_port"]?.intValue)
        XCTAssertEqual(alice["rest_url"]?.stringValue, "https://127.0.0.1:\(alicePort)")
        XCTAssertEqual(alice["tls_cert_path"]?.stringValue, directory + "/alice/tls.cert")
        XCTAssertEqual(bob["tls_cert_path"]?.stringValue, directory + "/bob/tls.cert")
        let aliceCertificate = try TLSCertificates.read(path: directory + "/alice/tls.cert")
        XCTAssertEqual(alice["tls_cert_sha256"]?.stringValue, aliceCertificate.fingerprints.first)
        XCTAssertNotEqual(aliceCertificate.der, try TLSCertificates.read(path: directory + "/bob/tls.cert").der)

        let client = try await harness.client(alice)
        let info = try await client.info()
        XCTAssertEqual(info.identityKey.compressed.hex, alice["identity_pubkey"]?.stringValue)

        // Plain HTTP to the TLS port: LND's answer, which the client turns into advice.
        do {
            _ = try await harness.client(alice, plainHTTP: true)
            XCTFail("plain HTTP reached a TLS port")
        } catch {
            XCTAssertTrue("\(error)".contains("this port serves TLS"), "\(error)")
        }
        // Bob's certificate does not open Alice's port.
        var wrong = alice
        if case .object(var members) = wrong {
            members = members.map { $0.key == "tls_cert_path" ? OrderedJSON.Member($0.key, .string(directory + "/bob/tls.cert")) : $0 }
            wrong = .object(members)
        }
        do {
            _ = try await harness.client(wrong)
            XCTFail("another node's certificate was trusted")
        } catch {
            XCTAssertTrue("\(error)".contains("not the one in"), "\(error)")
        }
        await harness.shutDown()
    }

    func testPlainHTTPForOneNodeAndUnsafeNamesRefused() async throws {
        let harness = try await RegtestHubHarness(housekeepingMilliseconds: 600_000, tlsDirectory: directory)
        let plain = try await harness.rpc.call("hub_ln_addnode", "[\"carol\",0,true]")
        let port = try XCTUnwrap(plain["rest_port"]?.intValue)
        XCTAssertEqual(plain["rest_url"]?.stringValue, "http://127.0.0.1:\(port)")
        XCTAssertEqual(plain["tls_cert_path"], .null)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory + "/carol"))
        let client = try await harness.client(plain)
        _ = try await client.info()

        for name in ["..", "a/b"] {
            let (_, body) = try await harness.rpc.raw("hub_ln_addnode", "[\"\(name)\",0]")
            XCTAssertTrue(body.contains("folder name"), body)
        }
        await harness.shutDown()
    }
}
