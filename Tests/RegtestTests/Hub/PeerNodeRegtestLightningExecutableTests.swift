import Foundation
import Regtest
import TestSupport
import Transport
import XCTest

/// `peernode-regtest --ln-node ...` as a user runs it: each node's LND REST endpoint is in
/// the printed JSON and answers with the printed macaroon; SIGTERM still exits 0.
final class PeerNodeRegtestLightningExecutableTests: XCTestCase {
    /// The executable sits next to the test bundle in the build products directory.
    private func executable() throws -> URL {
        let bundles = Bundle.allBundles.map(\.bundleURL) + [URL(fileURLWithPath: CommandLine.arguments[0])]
        for bundle in bundles {
            var directory = bundle.deletingLastPathComponent()
            for _ in 0..<3 {
                let candidate = directory.appendingPathComponent("peernode-regtest")
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                directory = directory.deletingLastPathComponent()
            }
        }
        XCTFail("peernode-regtest not found next to \(bundles); build it with `swift build --build-tests`")
        throw CocoaError(.fileNoSuchFile)
    }

    func testLightningNodesFromTheCommandLineAnswerGetInfo() async throws {
        _ = try makeKernelVerifier()
        let process = Process()
        process.executableURL = try executable()
        process.arguments = ["--ln-node", "alice:500000", "--ln-node", "bob:0"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer { if process.isRunning { process.interrupt() } }

        var line = Data()
        while !line.contains(0x0a) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            line += chunk
        }
        let printed = try XCTUnwrap(JSONSerialization.jsonObject(with: line) as? [String: Any])
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
            XCTAssertEqual(macaroon.count, 64)

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

        process.terminate() // SIGTERM
        for _ in 0..<100 where process.isRunning { try await Task.sleep(nanoseconds: 50_000_000) }
        XCTAssertFalse(process.isRunning, "stopped within 5 s of SIGTERM")
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 0)
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
