import Foundation
import Regtest
import TestSupport
import Transport
import XCTest

/// `peernode-regtest` as a user runs it: it prints its endpoints as JSON, answers over TCP,
/// and exits 0 on SIGTERM.
final class PeerNodeRegtestExecutableTests: XCTestCase {
    func testStartsPrintsEndpointsAnswersAndStopsOnSIGTERM() async throws {
        _ = try makeKernelVerifier()
        let run = try RegtestExecutable.start(arguments: ["--rpcuser", "u", "--rpcpassword", "p"])
        defer { run.interruptIfRunning() }
        // The first line is the endpoints object.
        let printed = run.printed
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

        try await run.terminateAndExpectCleanExit()
    }
}
