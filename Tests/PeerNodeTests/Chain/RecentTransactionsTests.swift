import Bitcoin
@testable import PeerNode
import XCTest

/// The backend's memory of recent mempool fetches holds at most its capacity, dropping
/// the oldest first, and keeps the first bytes it was given for a txid.
final class RecentTransactionsTests: XCTestCase {
    private func transaction(_ index: UInt32) -> Transaction {
        Transaction(version: 2,
                    inputs: [TransactionInput(previousOutput: OutPoint(txid: .zero, index: index), scriptSig: Script(),
                                              sequence: 0xffff_fffd)],
                    outputs: [TransactionOutput(value: 1_000, scriptPubKey: Script(bytes: [0x51]))], lockTime: 0)
    }

    func testTheOldestGoFirstOnceTheCapacityIsReached() {
        var recent = RecentTransactions(capacity: 3)
        let transactions = (0..<5).map { transaction(UInt32($0)) }
        for item in transactions.prefix(3) { recent.insert(item, as: item.txid) }
        XCTAssertEqual(recent.count, 3)
        for item in transactions.prefix(3) { XCTAssertEqual(recent[item.txid], item) }

        recent.insert(transactions[3], as: transactions[3].txid)
        XCTAssertNil(recent[transactions[0].txid], "the oldest went")
        XCTAssertEqual(recent[transactions[1].txid], transactions[1])
        recent.insert(transactions[4], as: transactions[4].txid)
        XCTAssertNil(recent[transactions[1].txid])
        XCTAssertEqual(recent.count, 3)
        XCTAssertEqual([2, 3, 4].map { recent[transactions[$0].txid] }, [2, 3, 4].map { transactions[$0] })
    }

    func testInsertingAKnownTxidAgainKeepsItsPlaceAndItsBytes() {
        var recent = RecentTransactions(capacity: 2)
        let first = transaction(1), second = transaction(2), third = transaction(3)
        recent.insert(first, as: first.txid)
        recent.insert(second, as: second.txid)
        recent.insert(first, as: first.txid)  // no new place in the ring
        XCTAssertEqual(recent.count, 2)
        recent.insert(third, as: third.txid)
        XCTAssertNil(recent[first.txid], "still the oldest")
        XCTAssertEqual(recent[second.txid], second)
        XCTAssertEqual(recent[third.txid], third)
    }
}
