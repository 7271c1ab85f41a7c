import Bitcoin
import Regtest
import TestSupport
import XCTest

/// A reorg returns a block's transactions to the mempool ahead of what was already there;
/// blocks mined afterwards, with one of them held, must still be valid (found by a real
/// ElectrumX run: the kernel refused the hub's own block).
final class ReorgHeldTransactionTests: XCTestCase {
    func testAParentAndChildConfirmedWithTheHeldTransactionAreMinedAgainAfterTheReorg() throws {
        let chain = try makeRegtestChain()
        defer { chain.close() }
        let wallet = TestWallet()
        let (_, payment) = try submitCoinbaseSpend(on: chain, wallet: wallet)
        let coin = try coinbase(of: chain, atHeight: 2)
        let parent = try wallet.spend(coin.outpoint, value: coin.value, fee: 10_000)
        let child = try wallet.spend(OutPoint(txid: parent.txid, index: 0), value: parent.outputs[0].value, fee: 10_000)
        try chain.submit(parent)
        try chain.submit(child)
        let block = try XCTUnwrap(chain.mine(1, to: wallet.script).first)
        XCTAssertEqual(try XCTUnwrap(chain.block(block)).block.transactions.count, 4)

        try chain.invalidateBlock(block)
        XCTAssertEqual(Set(chain.mempoolEntries().map(\.entry.txid)), [payment.txid, parent.txid, child.txid])
        XCTAssertTrue(chain.hold(payment.txid))
        let mined = try chain.mine(2, to: wallet.script)
        try assertKernelAgrees(chain)
        XCTAssertEqual(chain.tipHash, mined[1])
        XCTAssertEqual(chain.mempoolEntries().map(\.entry.txid), [payment.txid], "only the held payment waits")
    }

    func testBlocksAfterAReorgWithAHeldTransactionAndAParentChildPairAreValid() throws {
        let chain = try makeRegtestChain()
        defer { chain.close() }
        let wallet = TestWallet()
        let (_, payment) = try submitCoinbaseSpend(on: chain, wallet: wallet)
        let block = try XCTUnwrap(chain.mine(1, to: wallet.script).first)
        let coin = try coinbase(of: chain, atHeight: 2)
        let parent = try wallet.spend(coin.outpoint, value: coin.value, fee: 10_000)
        let child = try wallet.spend(OutPoint(txid: parent.txid, index: 0), value: parent.outputs[0].value, fee: 10_000)
        try chain.submit(parent)
        try chain.submit(child)

        try chain.invalidateBlock(block)
        XCTAssertEqual(Set(chain.mempoolEntries().map(\.entry.txid)), [payment.txid, parent.txid, child.txid])
        XCTAssertTrue(chain.hold(payment.txid))
        let mined = try chain.mine(2, to: wallet.script)
        try assertKernelAgrees(chain)
        XCTAssertEqual(chain.tipHash, mined[1])
        XCTAssertEqual(chain.mempoolEntries().map(\.entry.txid), [payment.txid], "only the held payment waits")
    }
}
