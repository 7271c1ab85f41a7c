import Bitcoin
import Foundation
import Regtest
import TestSupport
import Transport
import XCTest

/// A real ElectrumX 2.0 indexes the regtest hub through its Bitcoin Core RPC (batched
/// `getblockhash`/`getblock` verbosity 0, `getrawtransaction`, `getrawmempool`,
/// `getindexinfo`, `gettxspendingprevout` with `mempool_only=false`, `sendrawtransaction`,
/// `testmempoolaccept`, `submitpackage`, `estimatesmartfee`)
/// and a wallet, speaking the Electrum protocol to it, sees what the hub holds: the tip, a
/// payment in the mempool then confirmed, the transaction itself, who spent an outpoint,
/// and a reorg. ElectrumX refuses a Core older than 31.0 or one without `txindex` and
/// `txospenderindex`, so its starting at all checks the hub's answers too.
///
/// Timings are printed: a block shows up in about 1 s, but after a reorg, and once an
/// outpoint is subscribed, ElectrumX answers a session whose view lags the daemon only after
/// its own retries (0.5, 2.5, 5 s), so the reorg and the next confirmation take 4-5 s each.
/// That delay is the server's, and a node on Electrum has to live with it; the test waits
/// up to 30 s for each.
final class ElectrumXSyncTests: XCTestCase {
    func testElectrumXFollowsTheHubsBlocksMempoolSpendsAndReorgs() async throws {
        let harness = try await RegtestHubHarness(housekeepingMilliseconds: 600_000)
        var server: ElectrumXServer?
        var client: ElectrumTestClient?
        var modernClient: ElectrumTestClient?
        let started = Date()
        var stages: [String] = []
        func stage(_ name: String) { stages.append("\(name) \(String(format: "%.1f", Date().timeIntervalSince(started))) s") }
        do {
            let wallet = TestWallet(seed: 0x51), recipient = TestWallet(seed: 0x52)
            let walletAddress = Address.p2wpkh(pubkeyHash: wallet.pubkeyHash).encoded(for: .regtest)
            _ = try await harness.rpc.call("generatetoaddress", "[101,\"\(walletAddress)\"]")

            let credentials = RegtestHubHarness.credentials
            let electrumx = try ElectrumXServer(rpcPort: harness.hub.rpc.port, user: credentials.user,
                                                password: credentials.password)
            server = electrumx
            // Two wallets' sessions: one at 1.4-1.6, where `blockchain.scripthash.*` lives
            // (what Electrs and Fulcrum serve), one at 1.7, which replaced those by
            // `blockchain.scriptpubkey.*` and added `blockchain.outpoint.subscribe`.
            let electrum = try await connect(electrumx, loop: harness.loop)
            client = electrum
            stage("ElectrumX serving")
            let versionReply = try await electrum.call("server.version", ["peernode-tests", ["1.4", "1.6"]])
            let version = try XCTUnwrap(versionReply as? [Any])
            XCTAssertEqual(version.last as? String, "1.6", "the newest version at or below 1.6: \(version)")
            let modern = try await connect(electrumx, loop: harness.loop)
            modernClient = modern
            let modernReply = try await modern.call("server.version", ["peernode-tests", ["1.4", "1.7"]])
            XCTAssertEqual((modernReply as? [Any])?.last as? String, "1.7", "ElectrumX 2.0 speaks 1.7: \(modernReply)")

            // The tip: ElectrumX's header at the hub's height is the hub's header.
            try await assertTipAgrees(electrum, harness, electrumx)
            stage("tip agreed")

            // A payment broadcast through ElectrumX reaches the hub's mempool and shows in
            // the recipient's history as unconfirmed.
            let coin = try coinbase(of: harness.hub.chain, atHeight: 1)
            let payment = try wallet.spend([coin], to: [TransactionOutput(value: coin.value - 10_000, scriptPubKey: recipient.script)])
            let broadcast = try await electrum.call("blockchain.transaction.broadcast", [payment.serialized.hex]) as? String
            XCTAssertEqual(broadcast, payment.txid.hex)
            XCTAssertEqual(harness.hub.chain.mempoolEntries().map(\.entry.txid), [payment.txid], "in the hub's mempool")
            let scripthash = SHA256.hash(recipient.script.bytes).reversed().hex
            try await eventually("the payment in the recipient's history, unconfirmed", electrumx) {
                try await self.history(electrum, scripthash) == [payment.txid.hex: 0]
            }
            stage("payment in the mempool index")
            let unspentReply = try await electrum.call("blockchain.scripthash.listunspent", [scripthash])
            let unspent = try XCTUnwrap(unspentReply as? [[String: Any]])
            XCTAssertEqual(unspent.count, 1)
            XCTAssertEqual(unspent.first?["tx_hash"] as? String, payment.txid.hex)
            XCTAssertEqual((unspent.first?["value"] as? NSNumber)?.int64Value, coin.value - 10_000)
            XCTAssertEqual(unspent.first?["height"] as? Int, 0)

            // Fees: the hub's estimate (2 sat/vB) through estimatesmartfee, in BTC/kvB.
            _ = try await harness.rpc.call("hub_setfeeestimate", "[2000]")
            let fee = try await electrum.call("blockchain.estimatefee", [2])
            XCTAssertEqual((fee as? NSNumber)?.doubleValue, 0.00002, "\(fee)")
            // testmempoolaccept (1.7): another coinbase spend would be accepted; it is not sent.
            let other = try coinbase(of: harness.hub.chain, atHeight: 2)
            let probe = try wallet.spend(other.outpoint, value: other.value, fee: 10_000)
            let verdictReply = try await modern.call("blockchain.transaction.testmempoolaccept", [[probe.serialized.hex]])
            let verdict = try XCTUnwrap((verdictReply as? [[String: Any]])?.first, "\(verdictReply)")
            XCTAssertEqual(verdict["txid"] as? String, probe.txid.hex)
            XCTAssertEqual(verdict["allowed"] as? Bool, true, "\(verdict)")
            XCTAssertNil(harness.hub.chain.mempoolEntry(probe.txid), "only tested, not sent")
            // A parent and its child through broadcast_package (1.6+): the hub's submitpackage.
            // The parent spends the probe's coin (block 3's would be immature: depth 99).
            let parent = try wallet.spend(other.outpoint, value: other.value, fee: 10_000)
            let child = try wallet.spend(OutPoint(txid: parent.txid, index: 0), value: parent.outputs[0].value, fee: 10_000)
            let packageReply = try await electrum.call("blockchain.transaction.broadcast_package",
                                                       [[parent.serialized.hex, child.serialized.hex]])
            XCTAssertEqual((packageReply as? [String: Any])?["success"] as? Bool, true, "\(packageReply)")
            XCTAssertNotNil(harness.hub.chain.mempoolEntry(parent.txid), "the parent is in the hub's mempool")
            XCTAssertNotNil(harness.hub.chain.mempoolEntry(child.txid), "the child is in the hub's mempool")

            // Mined: confirmed at height 102 in the history, the tip follows.
            try await harness.generate(1)
            try await eventually("the payment confirmed at height 102", electrumx) {
                try await self.history(electrum, scripthash) == [payment.txid.hex: 102]
            }
            stage("confirmation indexed")
            let byScript = try await history(modern, recipient.script.bytes.hex, method: "blockchain.scriptpubkey.get_history")
            XCTAssertEqual(byScript, [payment.txid.hex: 102], "protocol 1.7's history by scriptPubKey")
            try await assertTipAgrees(electrum, harness, electrumx)
            let raw = try await electrum.call("blockchain.transaction.get", [payment.txid.hex]) as? String
            XCTAssertEqual(raw, payment.serialized.hex)

            // Who spent the coinbase: ElectrumX asks the hub's spender index
            // (`gettxspendingprevout` with mempool_only=false) for a confirmed spend.
            let spendReply = try await modern.call("blockchain.outpoint.subscribe",
                                                     [coin.outpoint.txid.hex, 0, wallet.script.bytes.hex])
            let spend = try XCTUnwrap(spendReply as? [String: Any])
            XCTAssertEqual(spend["spender_txhash"] as? String, payment.txid.hex, "\(spend)")
            XCTAssertEqual(spend["spender_height"] as? Int, 102, "\(spend)")
            XCTAssertEqual(spend["funder_height"] as? Int, 1, "\(spend)")

            // A reorg: block 102 is invalidated and the payment held out of the two blocks
            // that replace it, so ElectrumX must drop the confirmation and see a new tip.
            let oldBlock = try XCTUnwrap(harness.hub.chain.blockHash(atHeight: 102))
            _ = try await harness.rpc.call("invalidateblock", "[\"\(oldBlock.hex)\"]")
            stage("block 102 invalidated")
            _ = try await harness.rpc.call("hub_hold_transaction", "[\"\(payment.txid.hex)\"]")
            try await harness.generate(2)
            stage("2 blocks mined")
            XCTAssertNotEqual(harness.hub.chain.blockHash(atHeight: 102), oldBlock)
            try await eventually("the reorg followed: the payment unconfirmed again at the new tip 103", electrumx) {
                let tip = try await self.tip(electrum)
                guard tip.height == 103 else { return false }
                return try await self.history(electrum, scripthash) == [payment.txid.hex: 0]
            }
            try await assertTipAgrees(electrum, harness, electrumx)
            stage("reorg followed")
            let header102 = try await electrum.call("blockchain.block.header", [102]) as? String
            XCTAssertEqual(header102, harness.hub.chain.block(atHeight: 102)?.block.header.serialized.hex,
                           "ElectrumX replaced its header at the fork height")

            // Released and mined again: confirmed at 104.
            _ = try await harness.rpc.call("hub_release_transaction", "[\"\(payment.txid.hex)\"]")
            try await harness.generate(1)
            stage("block 104 mined")
            try await eventually("the payment confirmed again at height 104", electrumx) {
                try await self.history(electrum, scripthash) == [payment.txid.hex: 104]
            }
            try await assertTipAgrees(electrum, harness, electrumx)
        } catch {
            if let server { XCTFail("ElectrumX's log ends with:\n\(server.logTail)") }
            await client?.close()
            await modernClient?.close()
            server?.stop()
            await harness.shutDown()
            throw error
        }
        stage("reconfirmed")
        await client?.close()
        await modernClient?.close()
        server?.stop()
        stage("ElectrumX stopped")
        await harness.shutDown()
        print("electrumx-sync timings: " + stages.joined(separator: ", "))
    }

    // MARK: helpers

    /// Connects once ElectrumX has caught up with the daemon and opened its port (it
    /// listens only after its first sync).
    private func connect(_ server: ElectrumXServer, loop: EventLoop) async throws -> ElectrumTestClient {
        try await server.whenListening {
            (try? await TCPConnection.connect(host: "127.0.0.1", port: server.port, loop: loop)).map(ElectrumTestClient.init(stream:))
        }
    }

    private func tip(_ electrum: ElectrumTestClient) async throws -> (height: Int, hex: String) {
        let reply = try await electrum.call("blockchain.headers.subscribe")
        let tip = try XCTUnwrap(reply as? [String: Any])
        return (try XCTUnwrap(tip["height"] as? Int), try XCTUnwrap(tip["hex"] as? String))
    }

    /// Waits until ElectrumX's tip is the hub's, then checks the header bytes.
    private func assertTipAgrees(_ electrum: ElectrumTestClient, _ harness: RegtestHubHarness, _ server: ElectrumXServer,
                                 file: StaticString = #filePath, line: UInt = #line) async throws {
        let height = harness.hub.chain.height
        try await eventually("ElectrumX's tip at the hub's height \(height)", server, file: file, line: line) {
            try await self.tip(electrum).height == height
        }
        let bestReply = try await harness.rpc.call("getbestblockhash")
        let best = try XCTUnwrap(bestReply.stringValue)
        let header = try await harness.rpc.call("getblockheader", "[\"\(best)\",false]").stringValue
        let tip = try await tip(electrum)
        XCTAssertEqual(tip.hex, header, "ElectrumX's tip header is the hub's best block", file: file, line: line)
    }

    /// txid -> height (0: mempool) of a scripthash's history (or, with protocol 1.7's
    /// method, a scriptPubKey's).
    private func history(_ electrum: ElectrumTestClient, _ key: String,
                         method: String = "blockchain.scripthash.get_history") async throws -> [String: Int] {
        let reply = try await electrum.call(method, [key])
        // 1.7 wraps the list: {"history": [...]}.
        let entries = try XCTUnwrap((reply as? [String: Any])?["history"] as? [[String: Any]] ?? reply as? [[String: Any]])
        var result: [String: Int] = [:]
        for entry in entries {
            guard let txid = entry["tx_hash"] as? String, let height = entry["height"] as? Int else { continue }
            result[txid] = height
        }
        return result
    }

    /// Polls `condition` every 100 ms for up to 30 s: ElectrumX indexes a block after its
    /// next poll of the daemon, so the test waits for that, and fails naming what it waited for.
    private func eventually(_ description: String, _ server: ElectrumXServer, file: StaticString = #filePath, line: UInt = #line,
                            _ condition: () async throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if try await condition() { return }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        XCTFail("not within 30 s: \(description); ElectrumX's log:\n\(server.logTail)", file: file, line: line)
        throw ElectrumTestClient.Closed()
    }
}
