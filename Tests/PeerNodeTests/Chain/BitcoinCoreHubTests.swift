import Bitcoin
import PeerNode
import Regtest
import Synchronization
import TestSupport
import Transport
import XCTest

/// The node's Bitcoin Core client against the hub's JSON-RPC server, started in process on
/// loopback TCP over a kernel-validated chain: the same code path as against a real Core.
final class BitcoinCoreHubTests: XCTestCase, ChainWatchScenario {
    let miner = SigningKey(seed: 0x42)
    let receiver = SigningKey(seed: 0x17)

    private struct Hub {
        let chain: RegtestChain
        let backend: BitcoinCoreBackend
        /// The body of every HTTP request the hub received, in order.
        let bodies: Bodies
    }

    private final class Bodies: Sendable {
        private let list = Mutex<[String]>([])
        func append(_ body: String) { list.withLock { $0.append(body) } }
        /// The bodies so far, forgetting them.
        func take() -> [String] { list.withLock { bodies in defer { bodies = [] }; return bodies } }
    }

    private func withHub(_ body: (Hub) async throws -> Void) async throws {
        _ = try makeKernelVerifier()
        let loop = try EventLoop()
        let chain = try RegtestChain(policy: .coreV31Defaults)
        let hubChain = HubChain(chain: chain, policy: .coreV31Defaults, sleeper: LoopSleeper(loop: loop))
        let rpcServer = BitcoinRPCServer(credentials: HTTPBasicCredentials(user: "u", password: "p"),
                                         methods: BitcoinRPCMethods.all(hubChain), sleeper: LoopSleeper(loop: loop),
                                         authFailureDelayMilliseconds: 1)
        let bodies = Bodies()
        let http = HTTPServer(sleeper: LoopSleeper(loop: loop)) { request in
            bodies.append(String(decoding: request.body, as: UTF8.self))
            return await rpcServer.handler(request)
        }
        let listener = try await TCPListener.bind(host: "127.0.0.1", port: 0, loop: loop)
        let accepting = Task {
            await withTaskGroup(of: Void.self) { group in
                while let connection = try? await listener.accept() {
                    group.addTask { await http.serve(connection: connection) }
                }
            }
        }
        let rpc = BitcoinCoreRPC(endpoint: BitcoinCoreEndpoint(host: "127.0.0.1", port: listener.port),
                                 credentials: .user("u", password: "p"), loop: loop)
        var failure: (any Error)?
        do {
            try await body(Hub(chain: chain, backend: BitcoinCoreBackend(rpc: rpc, network: .regtest), bodies: bodies))
        } catch {
            failure = error
        }
        await rpc.shutDown()
        await listener.close()
        await accepting.value
        await hubChain.shutDown()
        chain.close()
        await loop.shutdown()
        if let failure { throw failure }
    }

    func testNetworkCheckAndQueries() async throws {
        try await withHub { hub in
            try hub.chain.mine(101, to: miner.script)
            let info = try await hub.backend.checkNetwork()
            XCTAssertEqual(info.tip, try tip(hub.chain, 101))
            let mainnet = BitcoinCoreBackend(rpc: hub.backend.rpc, network: .mainnet)
            do throws(ChainBackendError) {
                try await mainnet.checkNetwork()
                XCTFail("a regtest hub was accepted for mainnet")
            } catch {
                XCTAssertEqual(error, .wrongNetwork(expected: "main", actual: "regtest"))
            }
            let block = try await hub.backend.block(try tip(hub.chain, 100).hash)
            XCTAssertEqual(block, try XCTUnwrap(hub.chain.block(atHeight: 100)).block)
            let coin = try coinbase(of: hub.chain, atHeight: 1)
            let unspent = try await hub.backend.unspentOutput(coin.outpoint, includeMempool: true)
            XCTAssertEqual(unspent?.output.value, coin.value)
            XCTAssertEqual(unspent?.confirmations, 101)
            XCTAssertEqual(unspent?.isCoinbase, true)
            let none = try await hub.backend.estimateFee(targetBlocks: 2)
            XCTAssertNil(none)
            hub.chain.setFeeEstimate(.feeRate(2_500))
            let rate = try await hub.backend.estimateFee(targetBlocks: 2)
            XCTAssertEqual(rate?.satPerKvB, 2_500)
            let unknown = try await hub.backend.transaction(try TransactionID(bytes: [UInt8](repeating: 0xef, count: 32)))
            XCTAssertNil(unknown)
        }
    }

    func testFollowerSeesAWatchedScriptInTheMempoolThenConfirmed() async throws {
        try await withHub { hub in
            try hub.chain.mine(101, to: miner.script)
            let follower = ChainFollower(backend: hub.backend, sleeper: TaskSleeper())
            let watch = await follower.register(WatchFilter(scripts: [receiver.script]), confirmationDepth: 1)
            let log = EventLog(watch.events)
            try await follower.poll()

            let payment = try payReceiver(hub.chain, fromCoinbaseAt: 1)
            let txid = try await hub.backend.broadcast(payment)
            XCTAssertEqual(txid, payment.txid)
            try await follower.poll()
            let seen = try await log.take(1)
            XCTAssertEqual(seen, [received(payment, block: nil, confirmations: 0)])

            try hub.chain.mine(1, to: miner.script)
            try await follower.poll()
            let confirmed = try await log.take(2)
            let block = try tip(hub.chain, 102)
            XCTAssertEqual(confirmed, [.blockConnected(block), received(payment, block: block, confirmations: 1)])
            let found = try await hub.backend.transaction(payment.txid)
            XCTAssertEqual(found, PeerNode.ChainTransaction(transaction: payment, blockHash: block.hash, confirmations: 1))
        }
    }

    func testFollowerRewindsAndReappliesADepthTwoReorg() async throws {
        try await withHub { hub in
            try hub.chain.mine(101, to: miner.script)
            let follower = ChainFollower(backend: hub.backend, sleeper: TaskSleeper())
            let watch = await follower.register(WatchFilter(scripts: [receiver.script]), confirmationDepth: 2)
            let log = EventLog(watch.events)
            try await follower.poll()
            let payment = try payReceiver(hub.chain, fromCoinbaseAt: 1)
            _ = try await hub.backend.broadcast(payment)
            let old = try hub.chain.mine(2, to: miner.script)
            try await follower.poll()
            let old102 = ChainTip(height: 102, hash: old[0])
            let before = try await log.take(4)
            XCTAssertEqual(before, [.blockConnected(old102), received(payment, block: old102, confirmations: 1),
                                    .blockConnected(ChainTip(height: 103, hash: old[1])),
                                    received(payment, block: old102, confirmations: 2)],
                           "mined before the follower looked: no mempool sighting")

            try hub.chain.invalidateBlock(old[0])
            let new = try hub.chain.mine(3, to: SigningKey(seed: 0x05).script)
            try await follower.poll()
            let new102 = ChainTip(height: 102, hash: new[0])
            let events = try await log.take(8)
            XCTAssertEqual(events, [
                .blockDisconnected(ChainTip(height: 103, hash: old[1])), .blockDisconnected(old102),
                received(payment, block: nil, confirmations: 0),
                .blockConnected(new102), received(payment, block: new102, confirmations: 1),
                .blockConnected(ChainTip(height: 103, hash: new[1])), received(payment, block: new102, confirmations: 2),
                .blockConnected(ChainTip(height: 104, hash: new[2])),
            ])
            let followed = await follower.tip
            XCTAssertEqual(followed, ChainTip(height: 104, hash: new[2]))
        }
    }

    func testCoreErrorsReachTheCallerAsRejectionsWithCoresReason() async throws {
        try await withHub { hub in
            try hub.chain.mine(101, to: miner.script)
            // Missing inputs: a coin that never existed.
            let phantom = OutPoint(txid: try TransactionID(bytes: [UInt8](repeating: 0xab, count: 32)), index: 0)
            let missing = try miner.spend(phantom, value: 100_000_000,
                                          to: [TransactionOutput(value: 99_990_000, scriptPubKey: miner.script)])
            do throws(ChainBackendError) {
                _ = try await hub.backend.broadcast(missing)
                XCTFail("a spend of a missing coin was accepted")
            } catch {
                XCTAssertEqual(error, .rejected(code: -25, reason: "bad-txns-inputs-missingorspent"))
            }
            let verdict = try await hub.backend.testAccept(missing)
            XCTAssertFalse(verdict.allowed)
            XCTAssertEqual(verdict.rejectReason, "missing-inputs")

            // A conflict: a second spend of the same coin paying less fee.
            let first = try payReceiver(hub.chain, fromCoinbaseAt: 1, fee: 10_000)
            _ = try await hub.backend.broadcast(first)
            let conflicting = try payReceiver(hub.chain, fromCoinbaseAt: 1, fee: 5_000)
            do throws(ChainBackendError) {
                _ = try await hub.backend.broadcast(conflicting)
                XCTFail("a lower-fee conflict was accepted")
            } catch {
                guard case .rejected(let code, let reason) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(code, -26)
                XCTAssertTrue(reason.hasPrefix("insufficient fee, rejecting replacement \(conflicting.txid.hex)"), reason)
            }
            let mempool = try await hub.backend.mempoolTransactionIDs()
            XCTAssertEqual(mempool, [first.txid])
        }
    }

    /// The new transactions of one poll cost one request: a JSON-RPC batch of
    /// `getrawtransaction`, whose -5 for a txid no longer there leaves that one out; a
    /// transaction fetched before is not asked again.
    func testMempoolTransactionsAreFetchedInOneBatch() async throws {
        try await withHub { hub in
            try hub.chain.mine(103, to: miner.script)
            var sent: [Transaction] = []
            for height in 1...3 {
                let coin = try coinbase(of: hub.chain, atHeight: height)
                let spend = try miner.spend(coin.outpoint, value: coin.value,
                                            to: [TransactionOutput(value: coin.value - 10_000, scriptPubKey: receiver.script)])
                _ = try await hub.backend.broadcast(spend)
                sent.append(spend)
            }
            let gone = try TransactionID(bytes: [UInt8](repeating: 0xef, count: 32))
            _ = hub.bodies.take()
            let found = try await hub.backend.mempoolTransactions(sent.dropLast().map(\.txid) + [gone])
            XCTAssertEqual(found, Dictionary(uniqueKeysWithValues: sent.dropLast().map { ($0.txid, $0) }))
            let batch = hub.bodies.take()
            XCTAssertEqual(batch.count, 1, "one request for the three txids: \(batch)")
            XCTAssertEqual(batch.first?.first, "[", "a JSON-RPC batch")

            // The two already fetched come from memory; only the third is asked.
            let all = try await hub.backend.mempoolTransactions(sent.map(\.txid))
            XCTAssertEqual(all.count, 3)
            XCTAssertEqual(all[sent[2].txid], sent[2])
            let asked = hub.bodies.take()
            XCTAssertEqual(asked.count, 1)
            XCTAssertTrue(asked.first?.contains(sent[2].txid.hex) == true)
            XCTAssertFalse(asked.first?.contains(sent[0].txid.hex) == true)

            // More than a batch's worth: one request per 16.
            let many = try (0..<40).map { try TransactionID(bytes: [UInt8](repeating: UInt8($0), count: 32)) }
            let none = try await hub.backend.mempoolTransactions(many)
            XCTAssertTrue(none.isEmpty)
            XCTAssertEqual(hub.bodies.take().count, 3, "40 unknown txids in batches of 16")
        }
    }

    func testWrongPasswordIsUnauthorized() async throws {
        try await withHub { hub in
            let loop = try EventLoop()
            let rpc = BitcoinCoreRPC(endpoint: hub.backend.rpc.endpoint, credentials: .user("u", password: "wrong"), loop: loop)
            do throws(ChainBackendError) {
                _ = try await BitcoinCoreBackend(rpc: rpc, network: .regtest).tip()
                XCTFail("a wrong password was accepted")
            } catch {
                XCTAssertEqual(error, .unauthorized(url: hub.backend.rpc.endpoint.url))
            }
            await rpc.shutDown()
            await loop.shutdown()
        }
    }
}
