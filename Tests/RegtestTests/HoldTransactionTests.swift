import Bitcoin
import Regtest
import TestSupport
import XCTest

/// `hub_hold_transaction`: a held mempool transaction, and whatever spends it, stays out
/// of every block until released, while the rest of the mempool is mined as usual.
final class HoldTransactionTests: MatureChainTestCase {
    func testHeldTransactionAndItsChildWaitUntilReleased() throws {
        let first = try coinbase(of: chain, atHeight: 1)
        let held = try wallet.spend(first.outpoint, value: first.value, fee: 10_000)
        try chain.submit(held)
        let child = try wallet.spend(OutPoint(txid: held.txid, index: 0), value: first.value - 10_000, fee: 10_000)
        try chain.submit(child)
        let second = try coinbase(of: chain, atHeight: 2)
        let other = try wallet.spend(second.outpoint, value: second.value, fee: 1_000)
        try chain.submit(other)

        XCTAssertTrue(chain.hold(held.txid))
        XCTAssertEqual(chain.heldTransactions, [held.txid])
        try chain.mine(3, to: wallet.script)
        XCTAssertEqual(Set(chain.mempoolEntries().map(\.entry.txid)), [held.txid, child.txid],
                       "the held one and its child stay; the other is mined")
        XCTAssertNil(chain.mempoolEntry(other.txid))

        XCTAssertTrue(chain.release(held.txid))
        XCTAssertFalse(chain.release(held.txid), "released already")
        XCTAssertEqual(chain.heldTransactions, [])
        try chain.mine(1, to: wallet.script)
        XCTAssertTrue(chain.mempoolEntries().isEmpty)
        let block = try XCTUnwrap(chain.block(chain.tipHash)).block
        XCTAssertEqual(block.transactions.dropFirst().map(\.txid), [held.txid, child.txid])
        try assertKernelAgrees(chain)
    }

    func testOnlyAMempoolTransactionCanBeHeld() throws {
        XCTAssertFalse(chain.hold(try TransactionID(hex: String(repeating: "cd", count: 32))))
        XCTAssertEqual(chain.heldTransactions, [])
    }
}
