import Bitcoin
import Foundation
import Lightning
import Regtest
import TestSupport
import Transport
import XCTest

/// `peernode-regtest --ln-node ...` as a user runs it: each node's LND REST endpoint is in
/// the printed JSON and answers with the printed macaroon; SIGTERM still exits 0.
final class PeerNodeRegtestLightningExecutableTests: XCTestCase {
    func testLightningNodesFromTheCommandLineAnswerGetInfo() async throws {
        _ = try makeKernelVerifier()
        let run = try RegtestExecutable.start(arguments: ["--ln-node", "alice:500000", "--ln-node", "bob:0"])
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
            XCTAssertEqual(node["rest_url"] as? String, "http://127.0.0.1:\(port)")
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

            let (status, body) = try await getInfo(port: port, macaroonHex: macaroon, loop: loop)
            XCTAssertEqual(status, 200, body)
            let info = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
            XCTAssertEqual(info["identity_pubkey"] as? String, node["identity_pubkey"] as? String)
            XCTAssertEqual(info["alias"] as? String, name)

            // Another node's macaroon, or none, is refused.
            let other = try XCTUnwrap(lightning[name == "alice" ? "bob" : "alice"]?["macaroon_hex"] as? String)
            let (wrongStatus, _) = try await getInfo(port: port, macaroonHex: other, loop: loop)
            XCTAssertNotEqual(wrongStatus, 200)
            let (missingStatus, _) = try await getInfo(port: port, macaroonHex: nil, loop: loop)
            XCTAssertNotEqual(missingStatus, 200)
        }
        await loop.shutdown()

        try await run.terminateAndExpectCleanExit()
    }

    private func getInfo(port: Int, macaroonHex: String?, loop: EventLoop) async throws -> (Int, String) {
        var configuration = HTTPClient.Configuration(timeoutMilliseconds: 10_000)
        if let macaroonHex { configuration.headers.add(name: "Grpc-Metadata-macaroon", value: macaroonHex) }
        let client = HTTPClient(configuration: configuration, sleeper: loop.sleeper) { host, port in
            try await TCPConnection.connect(host: host, port: port, loop: loop)
        }
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
