import TestSupport
import XCTest
@testable import Bitcoin

/// Bitcoin Core's `sighash.json`: random transactions, scripts and 32-bit hash types, with
/// the legacy signature hash Core computes for each.
final class LegacySighashVectorTests: XCTestCase {
    func testEveryRowOfCoreSighashJSON() throws {
        let rows = try XCTUnwrap(try Vectors.json("bitcoin-core/sighash.json") as? [[Any]])
        var checked = 0
        for (number, row) in rows.enumerated() {
            if row.count == 1, row[0] is String { continue } // the header comment row
            guard row.count == 5,
                  let rawTransaction = row[0] as? String, let scriptHex = row[1] as? String,
                  let inputIndex = row[2] as? Int, let hashType = row[3] as? Int, let expected = row[4] as? String
            else {
                XCTFail("row \(number) has an unexpected shape")
                continue
            }
            let transaction = try Transaction(hex: rawTransaction)
            // The file stores the hash type as a signed 32-bit integer; its bit pattern is what
            // gets hashed.
            let type = SighashType(rawValue: UInt32(bitPattern: Int32(truncatingIfNeeded: hashType)))
            let digest = try LegacySighash(transaction: transaction)
                .hash(inputIndex: inputIndex, scriptCode: Script(bytes: bytes(scriptHex)), hashType: type)
            // Core prints uint256 values byte-reversed (GetHex).
            XCTAssertEqual(Array(digest.reversed()).hex, expected, "row \(number)")
            checked += 1
        }
        XCTAssertEqual(checked, 500)
    }
}
