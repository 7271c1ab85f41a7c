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

    func testARescanMatchesTheMempoolAgainWithoutFetchingItAgain() async throws {
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
        try await follower.poll()
        let first = try await log.take(1)
        XCTAssertEqual(first, [received(watched, block: nil, confirmations: 0)])
        XCTAssertEqual(backend.fetches.withLock { $0 }, 2, "each mempool transaction is fetched once")

        // A new watch looks back: the transaction already examined now matches, and is
        // reported from what the follower kept.
        await follower.watch(WatchFilter(scripts: [other.script]), for: watch.id)
        await follower.rescan(fromHeight: chain.height + 1)
        try await follower.poll()
        let again = try await log.take(1)
        XCTAssertEqual(again, [.transaction(WatchedTransaction(
            transaction: unwatched, txid: unwatched.txid,
            received: [ReceivedOutput(outpoint: OutPoint(txid: unwatched.txid, index: 0), output: unwatched.outputs[0])],
            spent: [], block: nil, confirmations: 0))])
        XCTAssertEqual(backend.fetches.withLock { $0 }, 2, "nothing fetched again after the rescan")
        try await log.assertNoMore()
    }

    /// A fetch that fails partway through a round loses nothing: the transactions fetched
    /// before it in that round are fetched and reported at the next round (before, they were
    /// marked as examined and never reported until a block mined them).
    func testAFetchFailingMidRoundLeavesTheRoundsTransactionsForTheNext() async throws {
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
        let listed = try await backend.mempoolTransactionIDs()
        XCTAssertEqual(listed, [watched.txid, unwatched.txid], "the watched one is fetched first")
        backend.failOnce.withLock { $0 = unwatched.txid }
        do {
            try await follower.poll()
            XCTFail("the round with a failing fetch succeeded")
        } catch {}
        try await follower.poll()
        let reported = try await log.take(1)
        XCTAssertEqual(reported, [received(watched, block: nil, confirmations: 0)])
        try await log.assertNoMore()
    }
}
