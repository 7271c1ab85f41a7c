import Bitcoin
import Foundation
import PeerNode
import Regtest
import Synchronization
import TestSupport
import Transport
import XCTest

/// `ElectrumBackend` (the node's `ChainBackend` on Electrum) against a real ElectrumX 2.0
/// over the regtest hub, behind a relay that can inject a hostile line: the chain follower
/// and the wallet on it see a payment in the mempool, its confirmation (merkle-proven),
/// its spend and a reorg; an oversized line, garbage and a server restart each drop the
/// connection, and what happened meanwhile is still reported once the backend is back.
final class ElectrumBackendTests: XCTestCase {
    func testTheFollowerAndTheWalletOnElectrumXSurviveHostileLinesAndARestart() async throws {
        let harness = try await RegtestHubHarness(housekeepingMilliseconds: 600_000)
        var server: ElectrumXServer?
        var proxy: ElectrumFaultProxy?
        var backend: ElectrumBackend?
        do {
            let miner = TestWallet(seed: 0x71), recipient = TestWallet(seed: 0x72)
            let minerAddress = Address.p2wpkh(pubkeyHash: miner.pubkeyHash).encoded(for: .regtest)
            _ = try await harness.rpc.call("generatetoaddress", "[101,\"\(minerAddress)\"]")
            let credentials = RegtestHubHarness.credentials
            let electrumx = try ElectrumXServer(rpcPort: harness.hub.rpc.port, user: credentials.user, password: credentials.password)
            server = electrumx
            try await waitForElectrumX(electrumx, loop: harness.loop, height: 101)
            let relay = try await ElectrumFaultProxy(upstreamPort: electrumx.port, loop: harness.loop)
            proxy = relay
            let electrum = ElectrumBackend(server: ElectrumServer(host: "127.0.0.1", port: relay.port), network: .regtest,
                                           loop: harness.loop, maxLineBytes: 65_536)
            backend = electrum
            XCTAssertFalse(electrum.servesWholeBlocks)

            // The tip and headers are the hub's.
            let tip = try await electrum.tip()
            XCTAssertEqual(tip.height, 101)
            XCTAssertEqual(tip.hash, harness.hub.chain.block(atHeight: 101)?.block.hash)
            let hash1 = try await electrum.blockHash(atHeight: 1)
            XCTAssertEqual(hash1, harness.hub.chain.block(atHeight: 1)?.block.hash)
            // ElectrumX 2.0 holds a reply under 1,024 bytes up to a second (its padding
            // against traffic analysis): 20 questions one at a time took 20 s before the
            // connection sent a filler call with each (ElectrumPadding).
            let began = Date()
            for _ in 0..<20 { _ = try await electrum.estimateFee(targetBlocks: 2) }
            XCTAssertLessThan(Date().timeIntervalSince(began), 8, "20 sequential calls are not held a second each")

            // The follower watches the recipient's script; the wallet syncs its own.
            let follower = ChainFollower(backend: electrum, sleeper: harness.loop.sleeper,
                                         configuration: ChainFollower.Configuration(pollIntervalMilliseconds: 100))
            let watch = await follower.register(WatchFilter(scripts: [recipient.script]), confirmationDepth: 6)
            let events = EventLog()
            let collecting = events.collect(watch.events)
            defer { collecting.cancel() }
            let running = Task { await follower.run() }
            defer { running.cancel() }
            let wallet = try Wallet(seed: [UInt8](repeating: 0x73, count: 32),
                                    configuration: WalletConfiguration(network: .regtest, birthdayHeight: 100), backend: electrum)
            let walletAddress = await wallet.newAddress()
            try await wallet.sync()

            // A payment to both, broadcast through the backend: seen unconfirmed.
            let coin = try coinbase(of: harness.hub.chain, atHeight: 1)
            let payment = try miner.spend([coin], to: [
                TransactionOutput(value: 1_000_000, scriptPubKey: recipient.script),
                TransactionOutput(value: 2_000_000, scriptPubKey: walletAddress.address.script),
                TransactionOutput(value: coin.value - 3_010_000, scriptPubKey: miner.script)])
            let sent = try await electrum.broadcast(payment)
            XCTAssertEqual(sent, payment.txid)
            try await eventually("the payment reported unconfirmed", electrumx) {
                events.transactions.contains { $0.txid == payment.txid && $0.confirmations == 0 }
            }
            let mempool = try await electrum.mempoolTransactionIDs()
            XCTAssertEqual(mempool, [payment.txid], "the watched scripts' mempool")
            let unconfirmed = try await electrum.transaction(payment.txid)
            XCTAssertEqual(unconfirmed?.confirmations, 0)
            XCTAssertNil(unconfirmed?.blockHash)
            try await eventually("the wallet's unconfirmed coin", electrumx) {
                try await wallet.sync()
                return await wallet.balance().unconfirmed == 2_000_000
            }
            let descendants = try await electrum.mempoolDescendantCount(payment.txid)
            XCTAssertEqual(descendants, 1)

            // Mined: confirmed at 102 in the follower and the wallet, merkle-proven.
            try await harness.generate(1)
            let block102 = try XCTUnwrap(harness.hub.chain.block(atHeight: 102)?.block.hash)
            try await eventually("the payment confirmed in block 102", electrumx) {
                events.transactions.contains { $0.txid == payment.txid && $0.confirmations == 1 && $0.block?.hash == block102 }
            }
            let confirmed = try await electrum.transaction(payment.txid)
            XCTAssertEqual(confirmed?.confirmations, 1)
            XCTAssertEqual(confirmed?.blockHash, block102)
            try await wallet.sync()
            let balance = await wallet.balance()
            XCTAssertEqual(balance.confirmed, 2_000_000)
            let received = OutPoint(txid: payment.txid, index: 0)
            let withMempool = try await electrum.unspentOutput(received, includeMempool: true)
            XCTAssertEqual(withMempool, UnspentOutputInfo(output: payment.outputs[0], confirmations: 1, isCoinbase: false))
            let coinbaseOutput = try await electrum.unspentOutput(coin.outpoint, includeMempool: true)
            XCTAssertNil(coinbaseOutput, "spent")
            let unknown = try await electrum.transaction(try TransactionID(hex: String(repeating: "ab", count: 32)))
            XCTAssertNil(unknown, "unknown is an answer")

            // An oversized line: the connection is dropped. Meanwhile the recipient spends
            // the coin (through the hub, not the backend): the follower still reports it.
            let connectionsBefore = await electrum.connectionCount
            await relay.inject([UInt8](repeating: 0x7B, count: 70_000))
            let spend = try recipient.spend(received, value: 1_000_000, fee: 5_000)
            _ = try await harness.rpc.call("sendrawtransaction", "[\"\(spend.serialized.hex)\"]")
            try await eventually("the spend reported after the reconnection", electrumx) {
                events.transactions.contains { $0.txid == spend.txid && $0.spent.map(\.outpoint) == [received] }
            }
            let connectionsAfterLine = await electrum.connectionCount
            XCTAssertGreaterThan(connectionsAfterLine, connectionsBefore, "a new connection")
            let spentInMempool = try await electrum.unspentOutput(received, includeMempool: true)
            XCTAssertNil(spentInMempool, "spent in the mempool")
            let chainOnly = try await electrum.unspentOutput(received, includeMempool: false)
            XCTAssertEqual(chainOnly?.confirmations, 1, "unspent in the chain while the spend is unconfirmed")

            // Garbage: dropped again; the spend confirms at 103 all the same.
            await relay.inject(Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8))
            try await harness.generate(1)
            try await eventually("the spend confirmed at 103", electrumx) {
                events.transactions.contains { $0.txid == spend.txid && $0.confirmations == 1 && $0.block?.height == 103 }
            }
            let connectionsAfterGarbage = await electrum.connectionCount
            XCTAssertGreaterThan(connectionsAfterGarbage, connectionsAfterLine)
            let spentInChain = try await electrum.unspentOutput(received, includeMempool: false)
            XCTAssertNil(spentInChain)

            // A reorg: block 103 invalidated, a longer branch mined; the follower sees 103
            // disconnected and the spend confirmed again in the new branch.
            let block103 = try XCTUnwrap(harness.hub.chain.block(atHeight: 103)?.block.hash)
            _ = try await harness.rpc.call("invalidateblock", "[\"\(block103.hex)\"]")
            try await harness.generate(2)
            let newTip = try XCTUnwrap(harness.hub.chain.block(atHeight: 104)?.block.hash)
            try await eventually("block 103 disconnected and the spend confirmed in the new branch", electrumx) {
                events.all.contains(.blockDisconnected(ChainTip(height: 103, hash: block103)))
                    && events.transactions.contains { $0.txid == spend.txid && $0.block != nil && $0.block?.hash != block103 }
            }
            try await eventually("the follower at the new tip", electrumx) { await follower.tip?.hash == newTip }

            // ElectrumX restarted: the backend reconnects and follows the next block.
            try electrumx.restart()
            try await harness.generate(1)
            let block105 = try XCTUnwrap(harness.hub.chain.block(atHeight: 105)?.block.hash)
            try await eventually("the follower at 105 after the restart", electrumx, seconds: 90) {
                await follower.tip?.hash == block105
            }
            try await wallet.sync()
            let synced = await wallet.syncedTip
            XCTAssertEqual(synced?.height, 105)
            let stillThere = await wallet.balance()
            XCTAssertEqual(stillThere.confirmed, 2_000_000)

            // testmempoolaccept does not exist on Electrum: refused, never a silent pass.
            do {
                _ = try await electrum.testAccept(spend)
                XCTFail("testAccept passed on Electrum")
            } catch {
                guard case .rpc = error else { return XCTFail("\(error)") }
            }
            await follower.finish()
        } catch {
            if let server { XCTFail("ElectrumX's log ends with:\n\(server.logTail)") }
            await backend?.shutDown()
            await proxy?.close()
            server?.stop()
            await harness.shutDown()
            throw error
        }
        await backend?.shutDown()
        await proxy?.close()
        server?.stop()
        await harness.shutDown()
    }

    /// A server of another network is refused with a typed error naming the genesis.
    func testAServerOfAnotherNetworkIsRefused() async throws {
        let harness = try await RegtestHubHarness(housekeepingMilliseconds: 600_000)
        let credentials = RegtestHubHarness.credentials
        let electrumx = try ElectrumXServer(rpcPort: harness.hub.rpc.port, user: credentials.user, password: credentials.password)
        do {
            try await waitForElectrumX(electrumx, loop: harness.loop, height: 0)
            let mainnet = ElectrumBackend(server: ElectrumServer(host: "127.0.0.1", port: electrumx.port), network: .mainnet,
                                          loop: harness.loop)
            do {
                _ = try await mainnet.tip()
                XCTFail("a regtest server answered a mainnet node")
            } catch {
                guard case .wrongNetwork = error else { return XCTFail("\(error)") }
                XCTAssertTrue(error.description.contains("0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206"),
                              error.description)
            }
            await mainnet.shutDown()
        } catch {
            electrumx.stop()
            await harness.shutDown()
            throw error
        }
        electrumx.stop()
        await harness.shutDown()
    }

    // MARK: helpers

    /// Until ElectrumX listens and has indexed `height`.
    private func waitForElectrumX(_ server: ElectrumXServer, loop: EventLoop, height: Int) async throws {
        _ = try await server.whenListening { () async throws -> Bool? in
            do throws(ElectrumError) {
                let client = try await ElectrumClient.connect(host: "127.0.0.1", port: server.port, network: nil, loop: loop)
                defer { Task { await client.connection.close() } }
                return try await client.subscribeHeaders().height >= height ? true : nil
            } catch {
                guard case .unreachable = error else { throw error }
                return nil
            }
        }
    }

    private func eventually(_ description: String, _ server: ElectrumXServer, seconds: Double = 30,
                            file: StaticString = #filePath, line: UInt = #line,
                            _ condition: () async throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if (try? await condition()) == true { return }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        XCTFail("not within \(Int(seconds)) s: \(description); ElectrumX's log:\n\(server.logTail)", file: file, line: line)
        throw ElectrumTestClient.Closed()
    }
}

/// The follower's events as they arrive, for polling.
private final class EventLog: Sendable {
    private let received = Mutex<[ChainEvent]>([])

    func collect(_ stream: AsyncStream<ChainEvent>) -> Task<Void, Never> {
        Task { for await event in stream { self.received.withLock { $0.append(event) } } }
    }

    var all: [ChainEvent] { received.withLock { $0 } }

    var transactions: [WatchedTransaction] {
        all.compactMap { if case .transaction(let watched) = $0 { return watched } else { return nil } }
    }
}
