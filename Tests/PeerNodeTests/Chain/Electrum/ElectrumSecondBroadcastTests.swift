import Bitcoin
import Lightning
@testable import PeerNode
import Regtest
import Transport
import XCTest

/// E-4 (docs/HTLC.md): an Electrum server the node does not run answers a broadcast with
/// the txid and relays nothing, so a claim sent after the preimage left never reaches a
/// miner. Every broadcast also goes through LND's `PublishTransaction`; here the server is
/// scripted to swallow, and LND is the hub's, publishing into the hub's mempool.
final class ElectrumSecondBroadcastTests: XCTestCase {
    private func withWorld(_ body: (HubFixture, ScriptedElectrumServer, LNDRESTClient, Wallet) async throws -> Void) async throws {
        let fixture = try await HubFixture.start(lightningNodes: [("client", 1_000_000_000)])
        let lnd = try await fixture.lndClient("client")
        let server = try await ScriptedElectrumServer(
            world: ScriptedElectrumServer.World(headers: ScriptedChain.headers(on: .zero, count: 3, salt: 1)), loop: fixture.loop)
        let wallet = try fixture.wallet(seed: 0x31)
        try fixture.mine(101, to: await wallet.newAddress().scriptPubKey)
        try await wallet.sync()
        do { try await body(fixture, server, lnd, wallet) } catch {
            await server.close()
            await fixture.shutDown([lnd])
            throw error
        }
        await server.close()
        await fixture.shutDown([lnd])
    }

    private func backend(_ server: ScriptedElectrumServer, _ fixture: HubFixture) -> ElectrumBackend {
        ElectrumBackend(server: ElectrumServer(host: "127.0.0.1", port: server.port), network: .regtest,
                        loop: fixture.loop, timeoutMilliseconds: 5_000)
    }

    func testAClaimTheServerSwallowsReachesTheMempoolThroughLND() async throws {
        try await withWorld { fixture, server, lnd, wallet in
            let first = try await wallet.prepareFunding(contract: WalletFixture.contract(0), amount: 100_000,
                                                        feeRate: WalletFixture.rate(2)).transaction
            // The server alone: "sent", and nothing reaches the chain.
            let alone = backend(server, fixture)
            let answered = try await alone.broadcast(first)
            XCTAssertEqual(answered, first.txid)
            XCTAssertEqual(server.world.broadcasts, [first.txid], "the server took it")
            XCTAssertFalse(fixture.inMempool(first.txid), "and relayed nothing: the attack")
            await alone.shutDown()

            let both = backend(server, fixture)
            await both.broadcastAlsoThrough(ElectrumSecondBroadcast.route(through: lnd, url: "lnd"))
            _ = try await both.broadcast(first)
            XCTAssertTrue(fixture.inMempool(first.txid), "LND's wallet published what the server swallowed")
            // Again (a claim sent at each block): LND has it already, which is no error.
            _ = try await both.broadcast(first)
            // The server refusing (down, or saying no) does not stop it either.
            server.update { $0.broadcastRefusal = "server busy" }
            try fixture.mine(1)
            try await wallet.sync()
            let second = try await wallet.prepareFunding(contract: WalletFixture.contract(1), amount: 100_000,
                                                         feeRate: WalletFixture.rate(2)).transaction
            _ = try await both.broadcast(second)
            XCTAssertTrue(fixture.inMempool(second.txid), "published by LND though the server refused")
            await both.shutDown()
        }
    }

    func testRefusedByBothIsLNDsRefusalInCoresTerms() async throws {
        try await withWorld { fixture, server, lnd, _ in
            // It spends an output that does not exist: the hub's mempool refuses it.
            let orphan = Transaction(inputs: [TransactionInput(previousOutput: OutPoint(
                                         txid: try TransactionID(bytes: [UInt8](repeating: 0x44, count: 32)), index: 0))],
                                     outputs: [TransactionOutput(value: 50_000, scriptPubKey: HubFixture.elsewhere.script)])
            server.update { $0.broadcastRefusal = "bad-txns-inputs-missingorspent" }
            let both = backend(server, fixture)
            await both.broadcastAlsoThrough(ElectrumSecondBroadcast.route(through: lnd, url: "lnd"))
            do throws(ChainBackendError) {
                _ = try await both.broadcast(orphan)
                XCTFail("a transaction both refused was published")
            } catch {
                guard case .rejected(let code, let reason) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(code, -25)
                XCTAssertTrue(reason.contains("LND's wallet"), reason)
                XCTAssertFalse(reason.contains("already"), "callers read 'already' as 'known already': \(reason)")
            }
            XCTAssertFalse(fixture.inMempool(orphan.txid))
            await both.shutDown()
        }
    }
}
