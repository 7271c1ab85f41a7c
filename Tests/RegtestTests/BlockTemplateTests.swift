import Bitcoin
import Regtest
import TestSupport
import XCTest

/// Blocks filled by ancestor-package fee rate up to `hub_setblockmaxweight`: what does not
/// fit waits in the mempool, and a low-fee parent goes in when its child pays for it.
final class BlockTemplateTests: MatureChainTestCase {
    private func spendCoinbase(atHeight height: Int, fee: Int64) throws -> Transaction {
        let coin = try coinbase(of: chain, atHeight: height)
        let spend = try wallet.spend(coin.outpoint, value: coin.value, fee: fee)
        try chain.submit(spend)
        return spend
    }

    private func minedTxids() throws -> [TransactionID] {
        try XCTUnwrap(chain.block(chain.tipHash)).block.transactions.dropFirst().map(\.txid)
    }

    func testTheDefaultLimitIsCoresAndOutOfRangeLimitsAreRefused() throws {
        XCTAssertEqual(chain.blockMaxWeight, 4_000_000)
        XCTAssertThrowsError(try chain.setBlockMaxWeight(4_000_001))
        XCTAssertThrowsError(try chain.setBlockMaxWeight(RegtestChain.minimumBlockMaxWeight - 1))
        XCTAssertEqual(chain.blockMaxWeight, 4_000_000)
    }

    func testOneTransactionABlockGoesHighestFeeRateFirstAndTheRestWait() throws {
        let low = try spendCoinbase(atHeight: 1, fee: 1_000)
        let high = try spendCoinbase(atHeight: 2, fee: 5_000)
        let middle = try spendCoinbase(atHeight: 3, fee: 3_000)
        let largest = [low, high, middle].map(\.weight).max()!
        try chain.setBlockMaxWeight(RegtestParameters.coinbaseWeightReserve + largest)

        try chain.mine(1, to: wallet.script)
        XCTAssertEqual(try minedTxids(), [high.txid])
        XCTAssertEqual(Set(chain.mempoolEntries().map(\.entry.txid)), [low.txid, middle.txid], "they did not fit: they wait")
        try chain.mine(1, to: wallet.script)
        XCTAssertEqual(try minedTxids(), [middle.txid])
        try chain.mine(1, to: wallet.script)
        XCTAssertEqual(try minedTxids(), [low.txid])
        try assertKernelAgrees(chain)
    }

    /// Room for two: the parent-and-child package (about 90 sat/vB together) beats a 27 sat/vB
    /// transaction although the parent alone pays under 2 sat/vB.
    func testAChildPaysForItsParentsPlace() throws {
        let parent = try spendCoinbase(atHeight: 1, fee: 200)
        let coin = try coinbase(of: chain, atHeight: 1)
        let child = try wallet.spend(OutPoint(txid: parent.txid, index: 0), value: coin.value - 200, fee: 20_000)
        try chain.submit(child)
        let medium = try spendCoinbase(atHeight: 2, fee: 3_000)
        try chain.setBlockMaxWeight(RegtestParameters.coinbaseWeightReserve + parent.weight + child.weight)

        try chain.mine(1, to: wallet.script)
        XCTAssertEqual(try minedTxids(), [parent.txid, child.txid])
        XCTAssertEqual(chain.mempoolEntries().map(\.entry.txid), [medium.txid])
        try chain.setBlockMaxWeight(4_000_000)
        try chain.mine(1, to: wallet.script)
        XCTAssertEqual(try minedTxids(), [medium.txid])
    }
}
