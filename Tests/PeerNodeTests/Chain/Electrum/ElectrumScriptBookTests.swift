import Bitcoin
@testable import PeerNode
import XCTest

/// The mempool the Electrum backend reports after a broadcast: the node's own transaction
/// counts as in the mempool at once, as after Core's sendrawtransaction, until the server's
/// index lists it. Without this a wallet syncing between the broadcast and ElectrumX's next
/// mempool poll dropped its pending lock and offered its coins again: in a benchmark of 40
/// sequential swaps on ElectrumX the 15th lock spent an output the 14th had spent
/// (`bad-txns-inputs-missingorspent`), and the swap was cancelled.
final class ElectrumScriptBookTests: XCTestCase {
    private func transaction(spending outpoints: [OutPoint], paying value: Int64) -> Transaction {
        Transaction(inputs: outpoints.map { TransactionInput(previousOutput: $0) },
                    outputs: [TransactionOutput(value: value, scriptPubKey: Script(bytes: [0x51]))])
    }

    private func outpoint(_ byte: UInt8, _ index: UInt32) throws -> OutPoint {
        OutPoint(txid: try TransactionID(bytes: [UInt8](repeating: byte, count: 32)), index: index)
    }

    func testABroadcastCountsAsInTheMempoolUntilAHistoryListsIt() throws {
        var book = ElectrumScriptBook()
        let script = Script(bytes: [0x00, 0x14] + [UInt8](repeating: 7, count: 20))
        let hash = try XCTUnwrap(book.add([script]).first)
        let lock = transaction(spending: [try outpoint(1, 0)], paying: 20_000)
        XCTAssertEqual(book.mempool(at: 0), [], "nothing broadcast yet")
        book.recordBroadcast(lock, at: 1_000)
        XCTAssertEqual(book.mempool(at: 1_100), [lock.txid], "accepted by the server, not indexed yet")
        book.record([ElectrumHistoryItem(txid: lock.txid, height: 0, feeSat: 200)], for: hash)
        XCTAssertEqual(book.mempool(at: 1_200), [lock.txid], "now the server's own listing")
        book.record([ElectrumHistoryItem(txid: lock.txid, height: 105, feeSat: nil)], for: hash)
        XCTAssertEqual(book.mempool(at: 1_300), [], "mined: the index lists it in a block, and the broadcast is forgotten")
        book.record([], for: hash)
        XCTAssertEqual(book.mempool(at: 1_400), [], "a reorg that drops it is the server's to report, not the broadcast's")
    }

    func testABroadcastNeverListedIsForgottenAfterTheGrace() throws {
        var book = ElectrumScriptBook()
        let lock = transaction(spending: [try outpoint(1, 0)], paying: 20_000)
        book.recordBroadcast(lock, at: 5_000)
        XCTAssertEqual(book.mempool(at: 5_000 + ElectrumScriptBook.broadcastGraceMilliseconds - 1), [lock.txid])
        XCTAssertEqual(book.mempool(at: 5_000 + ElectrumScriptBook.broadcastGraceMilliseconds), [])
        XCTAssertEqual(book.mempool(at: 5_000), [], "once forgotten it stays forgotten")
    }

    func testAReplacementTakesThePlaceOfTheTransactionItReplaces() throws {
        var book = ElectrumScriptBook()
        let first = transaction(spending: [try outpoint(1, 0), try outpoint(2, 1)], paying: 20_000)
        let other = transaction(spending: [try outpoint(3, 0)], paying: 9_000)
        let bump = transaction(spending: [try outpoint(2, 1)], paying: 19_000)
        book.recordBroadcast(first, at: 0)
        book.recordBroadcast(other, at: 10)
        book.recordBroadcast(bump, at: 20)
        XCTAssertEqual(book.mempool(at: 30), [other.txid, bump.txid], "the replaced transaction is no longer in the mempool")
    }
}
