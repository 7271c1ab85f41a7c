import Bitcoin
import Regtest
import TestSupport
import XCTest

/// The hub's spender index (Core's `-txospenderindex`): who spends an output, from the
/// mempool or from the active chain, and how a reorg moves the answer. ElectrumX asks
/// `gettxspendingprevout` with `mempool_only=false` and trusts it.
final class SpenderIndexTests: XCTestCase {
    func testASpendIsFoundInTheMempoolThenInItsBlockAndUnspentAfterAReorg() throws {
        let chain = try makeRegtestChain()
        defer { chain.close() }
        let wallet = TestWallet()
        let (coin, spend) = try submitCoinbaseSpend(on: chain, wallet: wallet)
        let change = OutPoint(txid: spend.txid, index: 0)

        let inMempool = try XCTUnwrap(chain.spender(of: coin.outpoint, mempoolOnly: false))
        XCTAssertEqual(inMempool.transaction.txid, spend.txid)
        XCTAssertNil(inMempool.blockHash, "only in the mempool")
        XCTAssertNil(chain.spender(of: change, mempoolOnly: false), "the spend's own output is unspent")

        let block = try XCTUnwrap(chain.mine(1, to: wallet.script).first)
        XCTAssertNil(chain.spender(of: coin.outpoint, mempoolOnly: true), "no longer in the mempool")
        let confirmed = try XCTUnwrap(chain.spender(of: coin.outpoint, mempoolOnly: false))
        XCTAssertEqual(confirmed.transaction.txid, spend.txid)
        XCTAssertEqual(confirmed.blockHash, block)

        // The block is disconnected: the spend is back in the mempool, not in the index.
        try chain.invalidateBlock(block)
        let returned = try XCTUnwrap(chain.spender(of: coin.outpoint, mempoolOnly: false))
        XCTAssertEqual(returned.transaction.txid, spend.txid)
        XCTAssertNil(returned.blockHash, "the index forgot the disconnected block's spend")

        // A conflicting spend confirmed on another branch replaces the answer.
        let other = try wallet.spend([coin], to: [TransactionOutput(value: coin.value - 50_000,
                                                                    scriptPubKey: TestWallet(seed: 3).script)])
        try chain.submit(other)
        let branch = try chain.mine(2, to: wallet.script)
        try assertKernelAgrees(chain)
        let replaced = try XCTUnwrap(chain.spender(of: coin.outpoint, mempoolOnly: false))
        XCTAssertEqual(replaced.transaction.txid, other.txid)
        XCTAssertEqual(replaced.blockHash, branch[0])
        XCTAssertNil(chain.spender(of: change, mempoolOnly: false), "the disconnected spend's output was never spent")
    }

    func testACoinbaseOutputSpentDeepInTheChainIsStillFound() throws {
        let chain = try makeRegtestChain()
        defer { chain.close() }
        let wallet = TestWallet()
        let (coin, spend) = try submitCoinbaseSpend(on: chain, wallet: wallet)
        let blocks = try chain.mine(20, to: wallet.script)
        let found = try XCTUnwrap(chain.spender(of: coin.outpoint, mempoolOnly: false))
        XCTAssertEqual(found.transaction.txid, spend.txid)
        XCTAssertEqual(found.blockHash, blocks[0])
        XCTAssertNil(chain.spender(of: coin.outpoint, mempoolOnly: true))
    }
}
