import Bitcoin
import Foundation
import Lightning
import Regtest
import TestSupport
import Transport
import XCTest

/// `peernode-regtest --ln-node ...` as a user runs it: each node's LND REST endpoint is in
/// the printed JSON and answers with the printed macaroon, over TLS with the printed
/// tls.cert by default (plain HTTP gets LND's refusal), in plain HTTP with
/// `--lnd-plain-http`; SIGTERM still exits 0.
final class PeerNodeRegtestLightningExecutableTests: XCTestCase {
    func testLightningNodesFromTheCommandLineAnswerGetInfoOverTLS() async throws {
        _ = try makeKernelVerifier()
        let datadir = FileManager.default.temporaryDirectory.appendingPathComponent("pn-hub-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: datadir) }
        let run = try RegtestExecutable.start(arguments: ["--ln-node", "alice:500000", "--ln-node", "bob:0", "--datadir", datadir])
        defer { run.interruptIfRunning() }
        // The first line is the endpoints object.
        let printed = run.printed
        let lightning = try XCTUnwrap(printed["lightning"] as? [String: [String: Any]])
        XCTAssertEqual(Set(lightning.keys), ["alice", "bob"])
        XCTAssertEqual(lightning["alice"]?["balance_sat"] as? Int, 500_000)
        XCTAssertEqual(lightning["bob"]?["balance_sat"] as? Int, 0)
        let methods = try XCTUnwrap((printed["bitcoind"] as? [String: Any])?["methods"] as? [String])
        for method in ["hub_ln_addnode", "hub_ln_setbalance", "hub_ln_setonline", "hub_ln_nodes", "hub_balances"] {
            XCTAssertTrue(methods.contains(method), method)
        }

        let loop = try EventLoop()
        for name in ["alice", "bob"] {
            let node = try XCTUnwrap(lightning[name])
            let port = try XCTUnwrap(node["rest_port"] as? Int)
            let macaroon = try XCTUnwrap(node["macaroon_hex"] as? String)
            XCTAssertEqual(node["rest_url"] as? String, "https://127.0.0.1:\(port)")
            // LND's admin.macaroon: V2, LND's identifier with admin's permissions.
            let decoded = try Macaroon(decoding: try XCTUnwrap([UInt8](hex: macaroon)))
            XCTAssertEqual(try LNDMacaroonID(decoding: decoded.identifier).permissions, LNDPermission.admin)
            // The three files LND writes, where the JSON says, admin's equal to macaroon_hex.
            let files = try XCTUnwrap(node["macaroons"] as? [String: String])
            for (kind, permissions) in [("admin", LNDPermission.admin), ("invoice", LNDPermission.invoice),
                                        ("readonly", LNDPermission.readOnly)] {
                let path = try XCTUnwrap(files[kind], kind)
                XCTAssertTrue(path.hasSuffix("/\(name)/\(kind).macaroon"), path)
                let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
                let file = try Macaroon(decoding: bytes)
                XCTAssertEqual(try LNDMacaroonID(decoding: file.identifier).permissions, permissions, kind)
                if kind == "admin" { XCTAssertEqual(bytes.hex, macaroon) }
            }
            let certificate = try XCTUnwrap(node["tls_cert_path"] as? String)
            XCTAssertEqual(certificate, datadir + "/\(name)/tls.cert")
            XCTAssertEqual(node["tls_cert_sha256"] as? String, try TLSCertificates.read(path: certificate).fingerprints.first)

            let (status, body) = try await getInfo(port: port, macaroonHex: macaroon, certificate: certificate, loop: loop)
            XCTAssertEqual(status, 200, body)
            let info = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
            XCTAssertEqual(info["identity_pubkey"] as? String, node["identity_pubkey"] as? String)
            XCTAssertEqual(info["alias"] as? String, name)

            // Another node's macaroon, or none, is refused.
            let other = try XCTUnwrap(lightning[name == "alice" ? "bob" : "alice"]?["macaroon_hex"] as? String)
            let (wrongStatus, _) = try await getInfo(port: port, macaroonHex: other, certificate: certificate, loop: loop)
            XCTAssertNotEqual(wrongStatus, 200)
            let (missingStatus, _) = try await getInfo(port: port, macaroonHex: nil, certificate: certificate, loop: loop)
            XCTAssertNotEqual(missingStatus, 200)
            // Plain HTTP on the TLS port: LND's (Go's) answer, before any macaroon is read.
            let (plainStatus, plainBody) = try await getInfo(port: port, macaroonHex: macaroon, certificate: nil, loop: loop)
            XCTAssertEqual(plainStatus, 400)
            XCTAssertTrue(plainBody.contains("Client sent an HTTP request to an HTTPS server"), plainBody)
        }
        // Each node has its own certificate.
        let alice = try TLSCertificates.read(path: datadir + "/alice/tls.cert")
        let bob = try TLSCertificates.read(path: datadir + "/bob/tls.cert")
        XCTAssertNotEqual(alice.der, bob.der)
        await loop.shutdown()

        try await run.terminateAndExpectCleanExit()
    }

    func testWithoutDatadirTheCertificatesGoToADirectoryTheHubRemovesWhenItStops() async throws {
        _ = try makeKernelVerifier()
        let run = try RegtestExecutable.start(arguments: ["--ln-node", "alice:0"])
        defer { run.interruptIfRunning() }
        let lightning = try XCTUnwrap(run.printed["lightning"] as? [String: [String: Any]])
        let certificate = try XCTUnwrap(lightning["alice"]?["tls_cert_path"] as? String)
        XCTAssertTrue(certificate.hasPrefix("/tmp/peernode-regtest-"), certificate)
        XCTAssertTrue(FileManager.default.fileExists(atPath: certificate))
        try await run.terminateAndExpectCleanExit()
        let directory = URL(fileURLWithPath: certificate).deletingLastPathComponent().deletingLastPathComponent().path
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory), directory)
    }

    func testLNDPlainHTTPServesPlainHTTP() async throws {
        _ = try makeKernelVerifier()
        let run = try RegtestExecutable.start(arguments: ["--ln-node", "alice:1000", "--lnd-plain-http"])
        defer { run.interruptIfRunning() }
        let lightning = try XCTUnwrap(run.printed["lightning"] as? [String: [String: Any]])
        let node = try XCTUnwrap(lightning["alice"])
        let port = try XCTUnwrap(node["rest_port"] as? Int)
        XCTAssertEqual(node["rest_url"] as? String, "http://127.0.0.1:\(port)")
        XCTAssertTrue(node["tls_cert_path"] is NSNull, "\(String(describing: node["tls_cert_path"]))")
        let loop = try EventLoop()
        let (status, body) = try await getInfo(port: port, macaroonHex: node["macaroon_hex"] as? String, certificate: nil, loop: loop)
        XCTAssertEqual(status, 200, body)
        await loop.shutdown()
        try await run.terminateAndExpectCleanExit()
    }

    func testDatadirWithLNDPlainHTTPIsRefused() throws {
        let process = Process()
        process.executableURL = try productExecutable("peernode-regtest")
        process.arguments = ["--datadir", "/tmp/unused", "--lnd-plain-http"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 2)
        XCTAssertTrue(text.contains("--lnd-plain-http turns off"), text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/tmp/unused"))
    }

    /// GET /v1/getinfo over TLS trusting only `certificate`, or plain HTTP when nil.
    private func getInfo(port: Int, macaroonHex: String?, certificate: String?, loop: EventLoop) async throws -> (Int, String) {
        var configuration = HTTPClient.Configuration(timeoutMilliseconds: 10_000)
        if let macaroonHex { configuration.headers.add(name: "Grpc-Metadata-macaroon", value: macaroonHex) }
        let plain: HTTPClient.Connector = { host, port in try await TCPConnection.connect(host: host, port: port, loop: loop) }
        let connector = certificate.map { TLSHTTPConnector(loop: loop, certificatePath: $0).connector } ?? plain
        let client = HTTPClient(configuration: configuration, sleeper: loop.sleeper, connector: connector)
        let result: Result<HTTPResponse, any Error>
        do {
            result = .success(try await client.send(HTTPRequest(method: .get, target: "/v1/getinfo"),
                                                    to: HTTPEndpoint(host: "127.0.0.1", port: port)))
        } catch {
            result = .failure(error)
        }
        await client.shutDown()
        let response = try result.get()
        return (response.status.code, String(decoding: response.body, as: UTF8.self))
    }
}
