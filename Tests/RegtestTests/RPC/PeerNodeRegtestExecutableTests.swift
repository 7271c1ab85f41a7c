import Foundation
import Regtest
import TestSupport
import Transport
import XCTest

/// `peernode-regtest` as a user runs it: it prints its endpoints as JSON, answers over TCP,
/// and exits 0 on SIGTERM.
final class PeerNodeRegtestExecutableTests: XCTestCase {
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

    func testStartsPrintsEndpointsAnswersAndStopsOnSIGTERM() async throws {
        _ = try makeKernelVerifier()
        let process = Process()
        process.executableURL = try executable()
        process.arguments = ["--rpcuser", "u", "--rpcpassword", "p"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer { if process.isRunning { process.interrupt() } }

        // The first line is the endpoints object.
        var line = Data()
        while !line.contains(0x0a) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            line += chunk
        }
        let printed = try XCTUnwrap(JSONSerialization.jsonObject(with: line) as? [String: Any])
        let bitcoind = try XCTUnwrap(printed["bitcoind"] as? [String: Any])
        let port = try XCTUnwrap(bitcoind["port"] as? Int)
        XCTAssertEqual(bitcoind["user"] as? String, "u")
        XCTAssertEqual(bitcoind["password"] as? String, "p")
        XCTAssertEqual(bitcoind["rpc_url"] as? String, "http://127.0.0.1:\(port)/")
        XCTAssertNotNil(printed["lightning"])

        let loop = try EventLoop()
        let rpc = RPCTestClient(port: port, credentials: HTTPBasicCredentials(user: "u", password: "p"), loop: loop)
        let height = try await rpc.call("getblockcount").intValue
        XCTAssertEqual(height, 0)
        await rpc.shutDown()
        await loop.shutdown()

        process.terminate() // SIGTERM
        for _ in 0..<100 where process.isRunning { try await Task.sleep(nanoseconds: 50_000_000) }
        XCTAssertFalse(process.isRunning, "stopped within 5 s of SIGTERM")
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 0)
    }
}
