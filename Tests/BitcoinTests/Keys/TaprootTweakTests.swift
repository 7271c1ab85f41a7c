import TestSupport
import XCTest
@testable import Bitcoin

/// BIP341 key tweaking against Bitcoin Core's copy of the BIP341 wallet vectors
/// (`bitcoin-core/bip341_wallet_vectors.json`).
final class TaprootTweakTests: XCTestCase {
    private func vectors() throws -> [String: Any] {
        try XCTUnwrap(try Vectors.json("bitcoin-core/bip341_wallet_vectors.json") as? [String: Any])
    }

    /// `scriptPubKey[*]`: internal key + Merkle root -> tweak and tweaked output key.
    func testOutputKeyTweakForEveryScriptPubKeyRow() throws {
        let rows = try XCTUnwrap(try vectors()["scriptPubKey"] as? [[String: Any]])
        XCTAssertEqual(rows.count, 7)
        var checked = 0
        for (number, row) in rows.enumerated() {
            let given = try XCTUnwrap(row["given"] as? [String: Any])
            let intermediary = try XCTUnwrap(row["intermediary"] as? [String: Any])
            let internalKey = try XOnlyPublicKey(bytes(try XCTUnwrap(given["internalPubkey"] as? String)))
            let merkleRoot = (intermediary["merkleRoot"] as? String).map { bytes($0) }
            XCTAssertEqual(try TaprootTweak.tweak(internalKey: internalKey, merkleRoot: merkleRoot).hex,
                           intermediary["tweak"] as? String, "row \(number) tweak")
            let output = try internalKey.tapTweaked(merkleRoot: merkleRoot)
            XCTAssertEqual(output.key.bytes.hex, intermediary["tweakedPubkey"] as? String, "row \(number) output key")
            // The parity is that of P + t·G with P the even-y lift of the internal key.
            let tweak = try TaprootTweak.tweak(internalKey: internalKey, merkleRoot: merkleRoot)
            XCTAssertEqual(output.parityOdd, try internalKey.publicKey.adding(tweak: tweak).hasOddY, "row \(number) parity")
            checked += 1
        }
        XCTAssertEqual(checked, 7)
    }

    /// `keyPathSpending[*].inputSpending[*]`: internal private key -> tweaked private key,
    /// whose x-only public key is the tweaked output key, and whose BIP340 signature over
    /// the sighash verifies against that output key.
    func testPrivateKeyTweakForEveryKeyPathInput() throws {
        let spends = try XCTUnwrap(try vectors()["keyPathSpending"] as? [[String: Any]])
        var checked = 0
        for spend in spends {
            let inputs = try XCTUnwrap(spend["inputSpending"] as? [[String: Any]])
            for input in inputs {
                let given = try XCTUnwrap(input["given"] as? [String: Any])
                let intermediary = try XCTUnwrap(input["intermediary"] as? [String: Any])
                let index = given["txinIndex"] as? Int ?? -1
                let key = try PrivateKey(bytes(try XCTUnwrap(given["internalPrivkey"] as? String)))
                XCTAssertEqual(key.xOnlyPublicKey.bytes.hex, intermediary["internalPubkey"] as? String, "input \(index)")
                let merkleRoot = (given["merkleRoot"] as? String).map { bytes($0) }
                XCTAssertEqual(try TaprootTweak.tweak(internalKey: key.xOnlyPublicKey, merkleRoot: merkleRoot).hex,
                               intermediary["tweak"] as? String, "input \(index) tweak")
                let tweaked = try key.tapTweaked(merkleRoot: merkleRoot)
                XCTAssertEqual(tweaked.bytes.hex, intermediary["tweakedPrivkey"] as? String, "input \(index) tweaked key")
                XCTAssertEqual(tweaked.xOnlyPublicKey, try key.xOnlyPublicKey.tapTweaked(merkleRoot: merkleRoot).key)

                let sigHash = bytes(try XCTUnwrap(intermediary["sigHash"] as? String))
                let signature = try SchnorrSignature.sign(message: sigHash, with: tweaked)
                XCTAssertTrue(signature.verify(message: sigHash, publicKey: tweaked.xOnlyPublicKey), "input \(index)")
                checked += 1
            }
        }
        XCTAssertEqual(checked, 7, "the BIP341 key-path vector spends 7 Taproot inputs")
    }

    func testMerkleRootMustBe32Bytes() throws {
        let key = PrivateKey.random().xOnlyPublicKey
        XCTAssertThrowsError(try key.tapTweaked(merkleRoot: [1, 2, 3]))
        XCTAssertNotEqual(try key.tapTweaked(merkleRoot: nil).key,
                          try key.tapTweaked(merkleRoot: [UInt8](repeating: 0, count: 32)).key,
                          "no script tree differs from an all-zero Merkle root")
    }
}
