import Bitcoin
import Foundation
import PeerNode
import Regtest
import Synchronization
import TestSupport
import Transport
import XCTest

/// The node's Electrum client (`PeerNode.ElectrumClient`) against a real ElectrumX 2.0
/// indexing the regtest hub: version negotiation, the network check, the tip and a new
/// block as a notification, a payment broadcast through the client reaching the hub's
/// mempool, showing in the script's history, mempool and unspent outputs (a status
/// notification too), then confirmed, fetched back, fee estimates, a batch, and the
/// daemon's refusal as a typed error.
final class ElectrumClientTests: XCTestCase {
    func testTheNodesClientAgainstElectrumXOverTheHub() async throws {
        let harness = try await RegtestHubHarness(housekeepingMilliseconds: 600_000)
        var server: ElectrumXServer?
        var client: ElectrumClient?
        do {
            let wallet = TestWallet(seed: 0x61), recipient = TestWallet(seed: 0x62)
            let walletAddress = Address.p2wpkh(pubkeyHash: wallet.pubkeyHash).encoded(for: .regtest)
            _ = try await harness.rpc.call("generatetoaddress", "[101,\"\(walletAddress)\"]")
            let credentials = RegtestHubHarness.credentials
            let electrumx = try ElectrumXServer(rpcPort: harness.hub.rpc.port, user: credentials.user,
                                                password: credentials.password)
            server = electrumx

            // Negotiation: the newest version the client asks for (1.6), the network
            // checked against regtest's genesis as part of connecting.
            let electrum = try await connect(electrumx, loop: harness.loop)
            client = electrum
            XCTAssertEqual(electrum.protocolVersion, ElectrumProtocolVersion(major: 1, minor: 6))
            XCTAssertTrue(electrum.serverSoftware.hasPrefix("ElectrumX"), electrum.serverSoftware)
            // A node of another network refuses this server, by its genesis hash.
            do throws(ElectrumError) {
                try await electrum.checkNetwork(.mainnet)
                XCTFail("a regtest server passed the mainnet check")
            } catch {
                XCTAssertEqual(error, .wrongNetwork(expected: "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f",
                                                    serverGenesis: "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206"))
                XCTAssertTrue(error.description.contains("another network"), error.description)
            }
            do throws(ElectrumError) {
                _ = try await ElectrumClient.connect(host: "127.0.0.1", port: electrumx.port, network: .signet, loop: harness.loop)
                XCTFail("connecting as a signet node succeeded")
            } catch {
                guard case .wrongNetwork = error else { return XCTFail("\(error)") }
            }

            // The tip, then a new block as a notification.
            let notifications = NotificationLog()
            let collecting = notifications.collect(await electrum.connection.notifications())
            defer { collecting.cancel() }
            let tip = try await eventuallyValue("ElectrumX at the hub's height 101", electrumx) {
                let tip = try await electrum.subscribeHeaders()
                return tip.height == 101 ? tip : nil
            }
            let bestReply = try await harness.rpc.call("getbestblockhash")
            let best = try XCTUnwrap(bestReply.stringValue)
            XCTAssertEqual(tip.blockHash, best)
            XCTAssertEqual(tip.header, harness.hub.chain.block(atHeight: 101)?.block.header.serialized)
            let header1 = try await electrum.blockHeader(height: 1)
            XCTAssertEqual(header1, harness.hub.chain.block(atHeight: 1)?.block.header.serialized)

            // A payment broadcast through the client: in the hub's mempool, then in the
            // recipient's history, mempool and unspent outputs, with a status notification.
            let scriptHash = ElectrumScriptHash(scriptPubKey: recipient.script.bytes)
            let initialStatus = try await electrum.subscribe(scriptHash)
            XCTAssertNil(initialStatus, "no history yet")
            let coin = try coinbase(of: harness.hub.chain, atHeight: 1)
            let payment = try wallet.spend([coin], to: [TransactionOutput(value: coin.value - 10_000, scriptPubKey: recipient.script)])
            try await electrum.broadcast(payment)
            XCTAssertEqual(harness.hub.chain.mempoolEntries().map(\.entry.txid), [payment.txid], "in the hub's mempool")
            let mempoolHistory = try await eventuallyValue("the payment in the history, unconfirmed", electrumx) {
                let history = try await electrum.history(scriptHash)
                return history.isEmpty ? nil : history
            }
            XCTAssertEqual(mempoolHistory.map(\.txid), [payment.txid])
            XCTAssertEqual(mempoolHistory.first?.height, 0)
            XCTAssertEqual(mempoolHistory.first?.feeSat, 10_000, "the server gives mempool fees")
            let inMempool = try await electrum.mempool(scriptHash)
            XCTAssertEqual(inMempool.map(\.txid), [payment.txid])
            let unspent = try await electrum.unspent(scriptHash)
            XCTAssertEqual(unspent, [ElectrumUnspent(outPoint: OutPoint(txid: payment.txid, index: 0),
                                                     valueSat: coin.value - 10_000, height: 0)])
            try await eventually("a status notification for the recipient's script", electrumx) {
                notifications.all.contains { $0.scriptHashStatus?.scriptHash == scriptHash && $0.scriptHashStatus?.status != nil }
            }
            let fetched = try await electrum.transaction(payment.txid)
            XCTAssertEqual(fetched.serialized(includingWitness: true), payment.serialized)

            // Mined: the new tip arrives as a notification; the payment is confirmed.
            try await harness.generate(1)
            try await eventually("a headers notification for block 102", electrumx) {
                notifications.all.contains { $0.headerTip?.height == 102 }
            }
            let announced = try XCTUnwrap(notifications.all.compactMap(\.headerTip).first { $0.height == 102 })
            XCTAssertEqual(announced.header, harness.hub.chain.block(atHeight: 102)?.block.header.serialized)
            try await eventually("the payment confirmed at 102", electrumx) {
                try await electrum.history(scriptHash).map(\.height) == [102]
            }
            let confirmedMempool = try await electrum.mempool(scriptHash)
            XCTAssertEqual(confirmedMempool, [], "no longer in the mempool")

            // Fee estimates in sat/kvB, exactly: the hub's 2,000 sat/kvB is 2e-05 BTC/kB on the wire.
            _ = try await harness.rpc.call("hub_setfeeestimate", "[2000]")
            let fee = try await electrum.estimateFee(blocks: 2)
            XCTAssertEqual(fee, 2_000)

            // A batch: two headers in one request line.
            let batch = try await electrum.connection.batch([("blockchain.block.header", [.integer(101)]),
                                                             ("blockchain.block.header", [.integer(999)])])
            XCTAssertEqual(try batch[0].get().stringValue, harness.hub.chain.block(atHeight: 101)?.block.header.serialized.hex)
            guard case .failure(.server(method: "blockchain.block.header", _, _)) = batch[1] else {
                return XCTFail("a header beyond the tip is refused alone: \(batch[1])")
            }

            // The daemon's refusal of a transaction (a coinbase spent before maturity) is a
            // typed server error carrying its reason; the connection stays up.
            let immature = try coinbase(of: harness.hub.chain, atHeight: 101)
            let early = try wallet.spend(immature.outpoint, value: immature.value, fee: 10_000)
            do throws(ElectrumError) {
                try await electrum.broadcast(early)
                XCTFail("an immature coinbase spend was accepted")
            } catch {
                guard case .server(method: "blockchain.transaction.broadcast", _, let message) = error else { return XCTFail("\(error)") }
                XCTAssertTrue(message.contains("premature"), message)
            }
            let stillUp = try await electrum.subscribeHeaders()
            XCTAssertEqual(stillUp.height, 102)
        } catch {
            if let server { XCTFail("ElectrumX's log ends with:\n\(server.logTail)") }
            await client?.connection.close()
            server?.stop()
            await harness.shutDown()
            throw error
        }
        await client?.connection.close()
        server?.stop()
        await harness.shutDown()
    }

    // MARK: helpers

    /// `ElectrumClient.connect` once ElectrumX listens (it opens its port after its first sync).
    private func connect(_ server: ElectrumXServer, loop: EventLoop) async throws -> ElectrumClient {
        try await server.whenListening { () async throws -> ElectrumClient? in
            do throws(ElectrumError) {
                return try await ElectrumClient.connect(host: "127.0.0.1", port: server.port, network: .regtest, loop: loop)
            } catch {
                // Refused until ElectrumX listens; anything else is the client's answer.
                guard case .unreachable = error else { throw error }
                return nil
            }
        }
    }

    private func eventually(_ description: String, _ server: ElectrumXServer, file: StaticString = #filePath, line: UInt = #line,
                            _ condition: () async throws -> Bool) async throws {
        _ = try await eventuallyValue(description, server, file: file, line: line) { try await condition() ? true : nil }
    }

    /// Polls every 100 ms for up to 30 s (ElectrumX indexes after its next daemon poll).
    private func eventuallyValue<T>(_ description: String, _ server: ElectrumXServer, file: StaticString = #filePath,
                                    line: UInt = #line, _ value: () async throws -> T?) async throws -> T {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let found = try await value() { return found }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        XCTFail("not within 30 s: \(description); ElectrumX's log:\n\(server.logTail)", file: file, line: line)
        throw ElectrumTestClient.Closed()
    }
}

/// Collects a connection's notifications as they arrive, for polling.
private final class NotificationLog: Sendable {
    private let received = Mutex<[ElectrumNotification]>([])

    func collect(_ stream: AsyncStream<ElectrumNotification>) -> Task<Void, Never> {
        Task { for await notification in stream { self.received.withLock { $0.append(notification) } } }
    }

    var all: [ElectrumNotification] { received.withLock { $0 } }
}
