import XCTest
@testable import Bitcoin

/// Rules of Core's CheckTransaction that tx_invalid.json does not reach (an empty input list
/// cannot be serialized without turning into the segwit marker; no row is oversized), plus the
/// boundaries of the others.
final class TransactionSanityCheckTests: XCTestCase {
    private let outpoint = OutPoint(txid: try! TransactionID(bytes: [UInt8](repeating: 1, count: 32)), index: 0)
    private let output = TransactionOutput(value: 1, scriptPubKey: Script([.number(1)]))

    private func assertRejected(_ transaction: Transaction, _ reason: String, line: UInt = #line) {
        XCTAssertThrowsError(try transaction.checkSanity(), line: line) { error in
            XCTAssertTrue("\(error)".contains(reason), "\(error)", line: line)
        }
    }

    func testNoInputsOrNoOutputs() {
        assertRejected(Transaction(inputs: [], outputs: [output]), "bad-txns-vin-empty")
        assertRejected(Transaction(inputs: [TransactionInput(previousOutput: outpoint)], outputs: []), "bad-txns-vout-empty")
    }

    func testOversizeIgnoresWitnessButCountsStrippedBytes() {
        let big = TransactionOutput(value: 0, scriptPubKey: Script(bytes: [UInt8](repeating: 0x61, count: 1_000_000)))
        assertRejected(Transaction(inputs: [TransactionInput(previousOutput: outpoint)], outputs: [big]), "bad-txns-oversize")
        let witness = Witness([[UInt8](repeating: 0, count: 1_100_000)])
        let heavy = Transaction(inputs: [TransactionInput(previousOutput: outpoint, witness: witness)], outputs: [output])
        XCTAssertNoThrow(try heavy.checkSanity())
    }

    func testAmountLimits() {
        let input = TransactionInput(previousOutput: outpoint)
        let max = TransactionOutput(value: Transaction.maxMoney, scriptPubKey: Script())
        XCTAssertNoThrow(try Transaction(inputs: [input], outputs: [max]).checkSanity())
        assertRejected(Transaction(inputs: [input], outputs: [TransactionOutput(value: -1, scriptPubKey: Script())]),
                       "bad-txns-vout-negative")
        assertRejected(Transaction(inputs: [input], outputs: [TransactionOutput(value: Transaction.maxMoney + 1, scriptPubKey: Script())]),
                       "bad-txns-vout-toolarge")
        assertRejected(Transaction(inputs: [input], outputs: [max, output]), "bad-txns-txouttotal-toolarge")
    }

    func testDuplicateAndNullInputs() {
        let input = TransactionInput(previousOutput: outpoint)
        assertRejected(Transaction(inputs: [input, input], outputs: [output]), "bad-txns-inputs-duplicate")
        let null = TransactionInput(previousOutput: .null, scriptSig: Script([.zero, .zero]))
        assertRejected(Transaction(inputs: [input, null], outputs: [output]), "bad-txns-prevout-null")
    }

    func testCoinbaseScriptSigLength() {
        func coinbase(_ length: Int) -> Transaction {
            Transaction(inputs: [TransactionInput(previousOutput: .null, scriptSig: Script(bytes: [UInt8](repeating: 0x51, count: length)))],
                        outputs: [output])
        }
        assertRejected(coinbase(1), "bad-cb-length")
        XCTAssertNoThrow(try coinbase(2).checkSanity())
        XCTAssertNoThrow(try coinbase(100).checkSanity())
        assertRejected(coinbase(101), "bad-cb-length")
    }
}
