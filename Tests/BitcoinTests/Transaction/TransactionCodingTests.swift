import TestSupport
import XCTest
@testable import Bitcoin

final class TransactionCodingTests: XCTestCase {
    // BIP143's native P2WPKH example, signed (from the BIP text, bip143_examples.json).
    func testSegwitRoundTripIdsAndSize() throws {
        let root = try XCTUnwrap(try Vectors.json("bip143/bip143_examples.json") as? [String: Any])
        let hex = try XCTUnwrap(Self.firstSignedTransaction(in: root))
        let tx = try Transaction(hex: hex)
        XCTAssertEqual(tx.serialized.hex, hex)
        XCTAssertTrue(tx.hasWitness)
        XCTAssertNotEqual(tx.txid, tx.wtxid)
        let base = tx.serialized(includingWitness: false).count
        XCTAssertEqual(tx.weight, base * 3 + hex.count / 2)
        XCTAssertEqual(tx.virtualSize, (tx.weight + 3) / 4)
        XCTAssertEqual(try Transaction(bytes: tx.serialized(includingWitness: false)).txid, tx.txid)
    }

    func testMalformedTransactionsAreRejected() throws {
        let tx = Transaction(inputs: [TransactionInput(previousOutput: OutPoint(txid: .zero, index: 0), witness: Witness([[1]]))],
                             outputs: [TransactionOutput(value: 1000, scriptPubKey: Script([.number(1)]))])
        var bytes = tx.serialized
        XCTAssertEqual(try Transaction(bytes: bytes), tx)
        XCTAssertThrowsError(try Transaction(bytes: bytes + [0]), "trailing byte")
        XCTAssertThrowsError(try Transaction(bytes: Array(bytes.dropLast())), "truncated")
        // Clear the only witness item count: a witness flag with all-empty witnesses.
        let witnessStart = bytes.count - 4 - 3
        XCTAssertEqual(Array(bytes[witnessStart..<witnessStart + 3]), [1, 1, 1])
        bytes.replaceSubrange(witnessStart..<witnessStart + 3, with: [0])
        XCTAssertThrowsError(try Transaction(bytes: bytes), "superfluous witness")
    }

    private static func firstSignedTransaction(in value: Any) -> String? {
        if let dict = value as? [String: Any] {
            for key in dict.keys.sorted() {
                if key.lowercased().contains("signed"), let s = dict[key] as? String, s.count > 200,
                   (try? Transaction(hex: s))?.hasWitness == true {
                    return s
                }
                if let found = firstSignedTransaction(in: dict[key] as Any) { return found }
            }
        } else if let array = value as? [Any] {
            for item in array { if let found = firstSignedTransaction(in: item) { return found } }
        }
        return nil
    }
}
