import TestSupport
import XCTest
@testable import Bitcoin

/// The worked examples of BIP143 (segwit v0 signature hash), every sighash they list.
final class BIP143VectorTests: XCTestCase {
    func testEveryExampleSighashAndPreimage() throws {
        let root = try XCTUnwrap(try Vectors.json("bip143/bip143_examples.json") as? [String: Any])
        let examples = try XCTUnwrap(root["examples"] as? [[String: Any]])
        var checked = 0
        for example in examples {
            let name = example["name"] as? String ?? "?"
            // The last example gives only the signed transaction; BIP143 never hashes
            // scriptSigs or witnesses, so it serves as well.
            let transactionHex = try XCTUnwrap(example["unsigned_tx"] as? String ?? example["signed_tx"] as? String, name)
            let sighash = SegwitV0Sighash(transaction: try Transaction(hex: transactionHex))
            let entries = try XCTUnwrap(example["sighashes"] as? [[String: Any]], name)
            for entry in entries {
                let inputIndex = try XCTUnwrap(entry["input_index"] as? Int, name)
                let amount = Int64(try XCTUnwrap(entry["amount_sats"] as? Int, name))
                let hashType = try XCTUnwrap(entry["hash_type"] as? Int, name)
                // The vector's scriptCode carries its length prefix, as it appears in the preimage.
                var reader = ByteReader(bytes(try XCTUnwrap(entry["scriptCode"] as? String, name)))
                let scriptCode = Script(bytes: try reader.readVarBytes())
                XCTAssertTrue(reader.isAtEnd, name)

                let type = SighashType(rawValue: UInt32(hashType))
                let context = "\(name), input \(inputIndex), hash type \(type)"
                if let preimage = entry["preimage"] as? String {
                    XCTAssertEqual(try sighash.preimage(inputIndex: inputIndex, scriptCode: scriptCode, amount: amount,
                                                        hashType: type).hex, preimage, context)
                }
                XCTAssertEqual(try sighash.hash(inputIndex: inputIndex, scriptCode: scriptCode, amount: amount,
                                                hashType: type).hex, entry["sighash"] as? String, context)
                checked += 1
            }
        }
        XCTAssertEqual(checked, 14)
    }
}
