import Bitcoin
import PeerNode
import XCTest

final class WatchFilterTests: XCTestCase {
    private let scriptA = Script(bytes: [0x00, 0x14] + [UInt8](repeating: 0xaa, count: 20))
    private let scriptB = Script(bytes: [0x00, 0x14] + [UInt8](repeating: 0xbb, count: 20))

    private func outpoint(_ byte: UInt8, _ index: UInt32) -> OutPoint {
        OutPoint(txid: try! TransactionID(bytes: [UInt8](repeating: byte, count: 32)), index: index)
    }

    func testReceivingAndSpendingAreMatchedAndReceivedCoinsBecomeWatched() {
        var filter = WatchFilter(scripts: [scriptA], outpoints: [outpoint(1, 0)])
        let pay = Transaction(inputs: [TransactionInput(previousOutput: outpoint(1, 0))],
                              outputs: [TransactionOutput(value: 5, scriptPubKey: scriptB),
                                        TransactionOutput(value: 7, scriptPubKey: scriptA)])
        let match = try! XCTUnwrap(filter.match(pay, txid: pay.txid))
        XCTAssertEqual(match.spent, [SpentOutpoint(outpoint: outpoint(1, 0), inputIndex: 0)])
        XCTAssertEqual(match.received, [ReceivedOutput(outpoint: OutPoint(txid: pay.txid, index: 1),
                                                       output: TransactionOutput(value: 7, scriptPubKey: scriptA))])
        filter.absorb(match.received)
        let spendChange = Transaction(inputs: [TransactionInput(previousOutput: OutPoint(txid: pay.txid, index: 1))],
                                      outputs: [TransactionOutput(value: 6, scriptPubKey: scriptB)])
        XCTAssertEqual(filter.match(spendChange, txid: spendChange.txid)?.spent.count, 1)
    }

    func testUnrelatedTransactionsDoNotMatch() {
        let filter = WatchFilter(scripts: [scriptA])
        let other = Transaction(inputs: [TransactionInput(previousOutput: outpoint(2, 0))],
                                outputs: [TransactionOutput(value: 5, scriptPubKey: scriptB)])
        XCTAssertNil(filter.match(other, txid: other.txid))
    }
}
