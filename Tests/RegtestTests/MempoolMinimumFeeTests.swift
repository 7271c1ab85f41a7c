import Bitcoin
import Regtest
import TestSupport
import XCTest

/// `hub_setmempoolminfee`: a rising mempool minimum evicts what falls below it (lowest
/// descendant score first, so a child paying for its parent keeps it) and refuses new
/// transactions below it with Core's `mempool min fee not met` (-26).
final class MempoolMinimumFeeTests: MatureChainTestCase {
    override var matureBlocks: Int { 120 }

    private func spendCoinbase(atHeight height: Int, fee: Int64, submit: Bool = true) throws -> Transaction {
        let coin = try coinbase(of: chain, atHeight: height)
        let spend = try wallet.spend(coin.outpoint, value: coin.value, fee: fee)
        if submit { try chain.submit(spend) }
        return spend
    }

    private var mempoolTxids: Set<TransactionID> { Set(chain.mempoolEntries().map(\.entry.txid)) }

    func testTheDefaultIsTheRelayFloor() {
        XCTAssertEqual(chain.mempoolMinFeeRate, MempoolPolicy().minRelayFeeRate)
    }

    func testRaisingTheMinimumEvictsWhatFallsBelowAndRefusesNewcomers() throws {
        let cheap = try spendCoinbase(atHeight: 1, fee: 150) // about 1.4 sat/vB
        let fair = try spendCoinbase(atHeight: 2, fee: 550) // about 5 sat/vB
        let evicted = chain.setMempoolMinFee(4_000)
        XCTAssertEqual(evicted, [cheap.txid])
        XCTAssertEqual(mempoolTxids, [fair.txid])
        XCTAssertEqual(chain.mempoolMinFeeRate, 4_000)

        let below = try spendCoinbase(atHeight: 3, fee: 300, submit: false)
        let refused = try XCTUnwrap(rejection { try chain.submit(below) })
        XCTAssertEqual(refused.message, "mempool min fee not met, 300 < \(Money.fee(ratePerKvB: 4_000, vsize: below.virtualSize))")
        XCTAssertEqual(refused.sendRawTransactionCode, -26)
        XCTAssertEqual(refused.testAcceptReason, "mempool min fee not met")
        XCTAssertNoThrow(try spendCoinbase(atHeight: 4, fee: 500))

        // Lifted: the relay floor is the only minimum again.
        XCTAssertEqual(chain.setMempoolMinFee(0), [])
        XCTAssertEqual(chain.mempoolMinFeeRate, 1_000)
        XCTAssertNoThrow(try chain.submit(below))
    }

    /// A cheap parent whose child pays well stays; a cheap child of a well-paying parent goes
    /// alone; a cheap parent with a cheap child goes with it.
    func testEvictionFollowsDescendantScores() throws {
        let value = { (height: Int) in try coinbase(of: self.chain, atHeight: height).value }
        let paidFor = try spendCoinbase(atHeight: 1, fee: 150)
        let payer = try wallet.spend(OutPoint(txid: paidFor.txid, index: 0), value: try value(1) - 150, fee: 10_000)
        try chain.submit(payer)
        let goodParent = try spendCoinbase(atHeight: 2, fee: 5_000)
        let cheapChild = try wallet.spend(OutPoint(txid: goodParent.txid, index: 0), value: try value(2) - 5_000, fee: 150)
        try chain.submit(cheapChild)
        let cheapParent = try spendCoinbase(atHeight: 3, fee: 150)
        let cheapGrandchild = try wallet.spend(OutPoint(txid: cheapParent.txid, index: 0), value: try value(3) - 150, fee: 160)
        try chain.submit(cheapGrandchild)

        let evicted = chain.setMempoolMinFee(3_000)
        XCTAssertEqual(Set(evicted), [cheapChild.txid, cheapParent.txid, cheapGrandchild.txid])
        XCTAssertEqual(mempoolTxids, [paidFor.txid, payer.txid, goodParent.txid])
    }

    /// The minimum is the hub's setting, not Core's decaying rolling minimum: blocks do not lower it.
    func testAHeldMinimumIsKeptAfterMining() throws {
        chain.setMempoolMinFee(10_000)
        try chain.mine(1, to: wallet.script)
        XCTAssertEqual(chain.mempoolMinFeeRate, 10_000)
        let below = try spendCoinbase(atHeight: 1, fee: 1_000, submit: false)
        XCTAssertEqual(rejection { try chain.submit(below) }?.reason, "mempool min fee not met")
    }
}
