import Foundation
import Lightning
@testable import PeerNode
import Regtest
import Transport
import XCTest

/// `peernode doctor`'s Electrum check (and `run`'s, which shares it) over loopback TCP:
/// nobody listening is a fatal `electrum` check saying what to start or set; a server
/// whose genesis is mainnet's, asked by a regtest node, is a fatal `electrum_network`
/// naming both genesis hashes; an older protocol is fatal with the upgrade advice.
final class ElectrumDoctorTests: XCTestCase {
    private func config(port: Int) throws -> NodeConfig {
        let file = try ConfigFileParser.parse(["network=regtest", "lnd_macaroon=m", "lnd_rest_tls=0", "chain_backend=electrum",
                                               "electrum_server=127.0.0.1:\(port)", "electrum_tls=0"].joined(separator: "\n"),
                                              fileName: "peernode.conf")
        return try NodeConfig.resolve(file: file, overrides: [], datadir: "/tmp/doctor", allowUnsafe: false)
    }

    /// Beside a server the operator does not run, every broadcast goes through LND's
    /// wallet too (E-4): a macaroon without onchain:write stops the start, naming the call
    /// and the two ways out; a trusted server needs no such permission.
    func testAnUntrustedServerNeedsAMacaroonThatPublishes() throws {
        let directory = NSTemporaryDirectory() + "pn-doctor-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/client.macaroon"
        let authority = LNDMacaroonAuthority()
        let lines = ["network=regtest", "lnd_macaroon=\(path)", "lnd_rest_tls=0", "chain_backend=electrum",
                     "electrum_server=127.0.0.1:50001", "electrum_tls=0"]
        func check(_ permissions: Set<LNDPermission>, trusted: Bool) throws -> DoctorCheck {
            try Data(authority.bake(permissions).encoded).write(to: URL(fileURLWithPath: path))
            let file = try ConfigFileParser.parse((lines + ["electrum_trusted=\(trusted ? 1 : 0)"]).joined(separator: "\n"),
                                                  fileName: "peernode.conf")
            return NodeDoctor.macaroon(try NodeConfig.resolve(file: file, overrides: [], datadir: directory, allowUnsafe: false))
        }
        let noOnchain = LNDPermission.admin.subtracting([LNDPermission("onchain", "write")])
        let refused = try check(noOnchain, trusted: false)
        XCTAssertEqual(refused.status, .fatal)
        XCTAssertTrue(refused.detail.contains("onchain:write (PublishTransaction)"), refused.detail)
        XCTAssertTrue(refused.detail.contains("electrum_trusted=0"), refused.detail)
        XCTAssertTrue(refused.fix?.contains("onchain:write") == true, refused.fix ?? "")
        XCTAssertTrue(refused.fix?.contains("electrum_trusted=1") == true, refused.fix ?? "")
        XCTAssertEqual(try check(noOnchain, trusted: true).status, .ok)
        XCTAssertEqual(try check(LNDPermission.admin, trusted: false).status, .ok)
    }

    func testNobodyListeningIsAFatalElectrumCheck() async throws {
        let loop = try EventLoop()
        let listener = try await TCPListener.bind(loop: loop)
        let port = listener.port
        await listener.close()
        let config = try config(port: port)
        let electrum = ElectrumBackend(server: try XCTUnwrap(config.electrum), network: .regtest, loop: loop)
        let (check, tip) = await NodeDoctor.electrum(electrum, config: config)
        XCTAssertNil(tip)
        XCTAssertEqual(check.name, "electrum")
        XCTAssertEqual(check.status, .fatal)
        XCTAssertTrue(check.sentence.contains("electrum_server"), check.sentence)
        await electrum.shutDown()
        await loop.shutdown()
    }

    func testAServerOfAnotherNetworkAndAnOldServerAreFatal() async throws {
        let mainnetGenesis = "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f"
        for (version, genesis, name, words) in [("1.6", mainnetGenesis, NodeDoctor.electrumNetworkCheck, mainnetGenesis),
                                                ("1.2", mainnetGenesis, "electrum", "upgrade it")] {
            let loop = try EventLoop()
            let listener = try await TCPListener.bind(loop: loop)
            let serving = Task {
                guard let connection = try await listener.accept() else { return }
                let peer = FakeElectrumPeer(stream: connection)
                while let request = try? await peer.readMessage() {
                    let result: JSONValue = switch request["method"]?.stringValue {
                    case "server.version": .array([.string("FakeX 1.0"), .string(version)])
                    case "server.features": .object(["genesis_hash": .string(genesis)])
                    default: .null
                    }
                    try await peer.send(.object(["jsonrpc": .string("2.0"), "id": request["id"]!, "result": result]))
                }
                await connection.close()
            }
            let config = try config(port: listener.port)
            let electrum = ElectrumBackend(server: try XCTUnwrap(config.electrum), network: .regtest, loop: loop)
            let (check, tip) = await NodeDoctor.electrum(electrum, config: config)
            XCTAssertNil(tip, version)
            XCTAssertEqual(check.name, name, version)
            XCTAssertEqual(check.status, .fatal, version)
            XCTAssertTrue(check.sentence.contains(words), check.sentence)
            await electrum.shutDown()
            serving.cancel()
            await listener.close()
            await loop.shutdown()
        }
    }
}
