import TestSupport
import XCTest
@testable import Bitcoin

/// BIP341's wallet vectors, `keyPathSpending`: the transaction-wide digests and, for every
/// input, the signature message, the signature hash and the key-path witness signed over it.
final class BIP341SighashVectorTests: XCTestCase {
    func testKeyPathSpendingSigMsgAndSigHash() throws {
        let root = try XCTUnwrap(try Vectors.json("bitcoin-core/bip341_wallet_vectors.json") as? [String: Any])
        let cases = try XCTUnwrap(root["keyPathSpending"] as? [[String: Any]])
        var checkedDigests = 0
        var checkedInputs = 0
        for testCase in cases {
            let given = try XCTUnwrap(testCase["given"] as? [String: Any])
            let transaction = try Transaction(hex: try XCTUnwrap(given["rawUnsignedTx"] as? String))
            let spent = try XCTUnwrap(given["utxosSpent"] as? [[String: Any]]).map { utxo in
                TransactionOutput(value: Int64(try XCTUnwrap(utxo["amountSats"] as? Int)),
                                  scriptPubKey: Script(bytes: bytes(try XCTUnwrap(utxo["scriptPubKey"] as? String))))
            }
            let sighash = try TaprootSighash(transaction: transaction, spentOutputs: spent)

            let intermediary = try XCTUnwrap(testCase["intermediary"] as? [String: String])
            XCTAssertEqual(sighash.shaAmounts.hex, intermediary["hashAmounts"])
            XCTAssertEqual(sighash.shaOutputs.hex, intermediary["hashOutputs"])
            XCTAssertEqual(sighash.shaPrevouts.hex, intermediary["hashPrevouts"])
            XCTAssertEqual(sighash.shaScriptPubKeys.hex, intermediary["hashScriptPubkeys"])
            XCTAssertEqual(sighash.shaSequences.hex, intermediary["hashSequences"])
            checkedDigests += 5

            for input in try XCTUnwrap(testCase["inputSpending"] as? [[String: Any]]) {
                let inputGiven = try XCTUnwrap(input["given"] as? [String: Any])
                let expected = try XCTUnwrap(input["intermediary"] as? [String: Any])
                let index = try XCTUnwrap(inputGiven["txinIndex"] as? Int)
                let hashType = SighashType(rawValue: UInt32(try XCTUnwrap(inputGiven["hashType"] as? Int)))
                let context = "input \(index), hash type \(hashType)"
                XCTAssertEqual(try sighash.signatureMessage(inputIndex: index, hashType: hashType).hex,
                               expected["sigMsg"] as? String, context)
                XCTAssertEqual(try sighash.hash(inputIndex: index, hashType: hashType).hex,
                               expected["sigHash"] as? String, context)

                // expected.witness: the key-path signature by the tweaked key over this sighash,
                // with the hash-type byte appended unless it is DEFAULT. BIP341's vectors were
                // signed without auxiliary randomness, which BIP340 defines as 32 zero bytes.
                let witness = try XCTUnwrap((input["expected"] as? [String: Any])?["witness"] as? [String])
                XCTAssertEqual(witness.count, 1, context)
                let internalKey = try PrivateKey(bytes(try XCTUnwrap(inputGiven["internalPrivkey"] as? String)))
                let merkleRoot = (inputGiven["merkleRoot"] as? String).map { bytes($0) }
                let tweakedKey = try internalKey.tapTweaked(merkleRoot: merkleRoot)
                XCTAssertEqual(([0x51, 0x20] + tweakedKey.xOnlyPublicKey.bytes), spent[index].scriptPubKey.bytes, context)
                let digest = try sighash.hash(inputIndex: index, hashType: hashType)
                let expectedSignature = bytes(witness[0])
                XCTAssertTrue(SchnorrSignature.verify(signature: Array(expectedSignature.prefix(64)), message: digest,
                                                      publicKey: tweakedKey.xOnlyPublicKey.bytes), context)
                let signature = try SchnorrSignature.sign(message: digest, with: tweakedKey,
                                                          auxiliaryRandomness: [UInt8](repeating: 0, count: 32))
                let suffix: [UInt8] = hashType == .default ? [] : [hashType.byte]
                XCTAssertEqual((signature.bytes + suffix).hex, witness[0], context)
                checkedInputs += 1
            }
        }
        XCTAssertEqual(checkedDigests, 5)
        XCTAssertEqual(checkedInputs, 7)
    }
}
