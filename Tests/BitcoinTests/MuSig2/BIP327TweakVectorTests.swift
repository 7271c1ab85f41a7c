import TestSupport
import XCTest
@testable import Bitcoin

/// BIP327 signing under plain and x-only tweaks against `bip327/tweak_vectors.json`.
final class BIP327TweakVectorTests: XCTestCase {
    func testTweakedSigningValidAndErrorCases() throws {
        let file = try BIP327Vectors.file("tweak")
        let secretKey = try PrivateKey(try BIP327Vectors.hex(file, "sk"))
        let keys = try BIP327Vectors.hexList(file, "pubkeys")
        let publicNonces = try BIP327Vectors.hexList(file, "pnonces")
        let tweaks = try BIP327Vectors.hexList(file, "tweaks")
        let secretNonce = try BIP327Vectors.hex(file, "secnonce")
        let aggregateNonce = try MuSig2AggregateNonce(try BIP327Vectors.hex(file, "aggnonce"))
        let message = try BIP327Vectors.hex(file, "msg")

        let valid = try XCTUnwrap(file["valid_test_cases"] as? [[String: Any]])
        XCTAssertEqual(valid.count, 5)
        for (number, test) in valid.enumerated() {
            let context = "valid case \(number): \(test["comment"] as? String ?? "")"
            let signerKeys = try BIP327Vectors.indices(test, "key_indices").map { keys[$0] }
            let nonces = try BIP327Vectors.indices(test, "nonce_indices").map { publicNonces[$0] }
            XCTAssertEqual(try MuSig2AggregateNonce(aggregatingSerialized: nonces), aggregateNonce, context)
            let aggregation = try BIP327Vectors.keyAggregation(
                keys: signerKeys, tweaks: try BIP327Vectors.indices(test, "tweak_indices").map { tweaks[$0] },
                xOnly: try XCTUnwrap(test["is_xonly"] as? [Bool]))
            let session = MuSig2Session(keyAggregation: aggregation, aggregateNonce: aggregateNonce, message: message)
            let signature = try session.sign(try MuSig2SecretNonce(serialized: secretNonce), with: secretKey)
            XCTAssertEqual(signature.bytes, try BIP327Vectors.hex(test, "expected"), context)
            let signer = try XCTUnwrap(test["signer_index"] as? Int)
            XCTAssertTrue(session.verify(signature, publicNonce: try MuSig2PublicNonce(nonces[signer]),
                                         publicKey: try PublicKey(signerKeys[signer])), context)
        }

        let errors = try XCTUnwrap(file["error_test_cases"] as? [[String: Any]])
        XCTAssertEqual(errors.count, 1)
        for (number, test) in errors.enumerated() {
            let signerKeys = try BIP327Vectors.indices(test, "key_indices").map { keys[$0] }
            let selectedTweaks = try BIP327Vectors.indices(test, "tweak_indices").map { tweaks[$0] }
            let xOnly = try XCTUnwrap(test["is_xonly"] as? [Bool])
            BIP327Vectors.assertThrows(try BIP327Vectors.expectedError(test), "error case \(number)") {
                let aggregation = try BIP327Vectors.keyAggregation(keys: signerKeys, tweaks: selectedTweaks, xOnly: xOnly)
                let session = MuSig2Session(keyAggregation: aggregation, aggregateNonce: aggregateNonce, message: message)
                return try session.sign(try MuSig2SecretNonce(serialized: secretNonce), with: secretKey)
            }
        }
    }
}
