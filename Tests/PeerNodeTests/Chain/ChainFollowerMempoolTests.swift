import Bitcoin
import HTLC
import PeerNode
import Regtest
import Synchronization
import TestSupport
import Transport
import XCTest

/// Audit L-6: a rescan (a new watch looking back) matches the mempool transactions the
/// follower already examined against the new filters without fetching them again.
final class ChainFollowerMempoolTests: XCTestCase, ChainWatchScenario {
    let miner = SigningKey(seed: 0x42)
    let receiver = SigningKey(seed: 0x17)
    let other = SigningKey(seed: 0x23)

    /// The hub's backend, counting `getrawtransaction` calls (what L-6 is about).
    private final class CountingBackend: ChainBackend {
        let inner: RegtestChainBackend
        let fetches = Mutex(0)
        /// A txid whose next fetch fails as a dropped connection would.
        let failOnce = Mutex<TransactionID?>(nil)
        init(_ inner: RegtestChainBackend) { self.inner = inner }
        func tip() async throws(ChainBackendError) -> ChainTip { try await inner.tip() }
        func blockHash(atHeight height: Int) async throws(ChainBackendError) -> BlockHash { try await inner.blockHash(atHeight: height) }
        func block(_ hash: BlockHash) async throws(ChainBackendError) -> Block { try await inner.block(hash) }
        func transaction(_ txid: TransactionID) async throws(ChainBackendError) -> PeerNode.ChainTransaction? {
            fetches.withLock { $0 += 1 }
            let fails = failOnce.withLock { failing in
                defer { if failing == txid { failing = nil } }
                return failing == txid
            }
            if fails { throw .unreachable(url: "http://127.0.0.1/", reason: "the connection dropped") }
            return try await inner.transaction(txid)
        }
        func broadcast(_ transaction: Transaction) async throws(ChainBackendError) -> TransactionID { try await inner.broadcast(transaction) }
        func testAccept(_ transaction: Transaction) async throws(ChainBackendError) -> MempoolAcceptance { try await inner.testAccept(transaction) }
        func mempoolTransactionIDs() async throws(ChainBackendError) -> [TransactionID] { try await inner.mempoolTransactionIDs() }
        func unspentOutput(_ outpoint: OutPoint, includeMempool: Bool) async throws(ChainBackendError) -> UnspentOutputInfo? {
            try await inner.unspentOutput(outpoint, includeMempool: includeMempool)
        }
        func estimateFee(targetBlocks: Int) async throws(ChainBackendError) -> FeeRate? { try await inner.estimateFee(targetBlocks: targetBlocks) }
        func mempoolDescendantCount(_ txid: TransactionID) async throws(ChainBackendError) -> Int? {
            try await inner.mempoolDescendantCount(txid)
        }
    }

    /// A follower watching the receiver's script on the hub's chain, after its first look,
    /// and two transactions then broadcast: one paying the receiver, one paying another.
    private struct TwoInTheMempool {
        let chain: RegtestChain
        let backend: CountingBackend
        let follower: ChainFollower
        let watch: ChainFollower.Watch
        let log: EventLog
        let watched: Transaction
        let unwatched: Transaction
    }

    private func withTwoInTheMempool(_ body: (TwoInTheMempool) async throws -> Void) async throws {
        let chain = try makeRegtestChain()
        defer { chain.close() }
        try chain.mine(101, to: miner.script)
        let backend = CountingBackend(RegtestChainBackend(chain: chain, verifier: try makeKernelVerifier()))
        let follower = ChainFollower(backend: backend, sleeper: TaskSleeper())
        let watch = await follower.register(WatchFilter(scripts: [receiver.script]), confirmationDepth: 3)
        let log = EventLog(watch.events)
        try await follower.poll()

        let watched = try payReceiver(chain, fromCoinbaseAt: 1)
        let coin = try coinbase(of: chain, atHeight: 2)
        let unwatched = try miner.spend(coin.outpoint, value: coin.value,
                                        to: [TransactionOutput(value: coin.value - 10_000, scriptPubKey: other.script)])
        _ = try await backend.broadcast(watched)
        _ = try await backend.broadcast(unwatched)
        try await body(TwoInTheMempool(chain: chain, backend: backend, follower: follower, watch: watch, log: log,
                                       watched: watched, unwatched: unwatched))
    }

    func testARescanMatchesTheMempoolAgainWithoutFetchingItAgain() async throws {
        try await withTwoInTheMempool { world in
            try await world.follower.poll()
            let first = try await world.log.take(1)
            XCTAssertEqual(first, [received(world.watched, block: nil, confirmations: 0)])
            XCTAssertEqual(world.backend.fetches.withLock { $0 }, 2, "each mempool transaction is fetched once")

            // A new watch looks back: the transaction already examined now matches, and is
            // reported from what the follower kept.
            await world.follower.watch(WatchFilter(scripts: [other.script]), for: world.watch.id)
            await world.follower.rescan(fromHeight: world.chain.height + 1)
            try await world.follower.poll()
            let again = try await world.log.take(1)
            let unwatched = world.unwatched
            XCTAssertEqual(again, [.transaction(WatchedTransaction(
                transaction: unwatched, txid: unwatched.txid,
                received: [ReceivedOutput(outpoint: OutPoint(txid: unwatched.txid, index: 0), output: unwatched.outputs[0])],
                spent: [], block: nil, confirmations: 0))])
            XCTAssertEqual(world.backend.fetches.withLock { $0 }, 2, "nothing fetched again after the rescan")
            try await world.log.assertNoMore()
        }
    }

    /// A fetch that fails partway through a round loses nothing: the transactions fetched
    /// before it in that round are fetched and reported at the next round (before, they were
    /// marked as examined and never reported until a block mined them).
    func testAFetchFailingMidRoundLeavesTheRoundsTransactionsForTheNext() async throws {
        try await withTwoInTheMempool { world in
            let listed = try await world.backend.mempoolTransactionIDs()
            XCTAssertEqual(listed, [world.watched.txid, world.unwatched.txid], "the watched one is fetched first")
            world.backend.failOnce.withLock { $0 = world.unwatched.txid }
            do {
                try await world.follower.poll()
                XCTFail("the round with a failing fetch succeeded")
            } catch {}
            try await world.follower.poll()
            let reported = try await world.log.take(1)
            XCTAssertEqual(reported, [received(world.watched, block: nil, confirmations: 0)])
            try await world.log.assertNoMore()
        }
    }
}
