import TestSupport
import XCTest
@testable import Bitcoin

/// BIP327 DeterministicSign against `bip327/det_sign_vectors.json`, every valid and error case.
final class BIP327DetSignVectorTests: XCTestCase {
    func testDeterministicSignValidAndErrorCases() throws {
        let file = try BIP327Vectors.file("det_sign")
        let secretKey = try PrivateKey(try BIP327Vectors.hex(file, "sk"))
        let keys = try BIP327Vectors.hexList(file, "pubkeys")
        let messages = try BIP327Vectors.hexList(file, "msgs")

        func sign(_ test: [String: Any]) throws -> (MuSig2Session, MuSig2PublicNonce, MuSig2PartialSignature) {
            let aggregation = try BIP327Vectors.keyAggregation(
                keys: try BIP327Vectors.indices(test, "key_indices").map { keys[$0] },
                tweaks: try BIP327Vectors.hexList(test, "tweaks"), xOnly: try XCTUnwrap(test["is_xonly"] as? [Bool]))
            let otherNonce = try BIP327Vectors.hex(test, "aggothernonce")
            let message = messages[try XCTUnwrap(test["msg_index"] as? Int)]
            let (nonce, signature) = try MuSig2Session.deterministicSign(
                secretKey: secretKey, aggregateOtherNonce: otherNonce, keyAggregation: aggregation, message: message,
                randomness: BIP327Vectors.optionalHex(test, "rand"))
            let session = MuSig2Session(keyAggregation: aggregation,
                                        aggregateNonce: MuSig2AggregateNonce(aggregating: [nonce, try MuSig2PublicNonce(otherNonce)]),
                                        message: message)
            return (session, nonce, signature)
        }

        let valid = try XCTUnwrap(file["valid_test_cases"] as? [[String: Any]])
        XCTAssertEqual(valid.count, 4)
        for (number, test) in valid.enumerated() {
            let context = "valid case \(number): \(test["comment"] as? String ?? "")"
            let expected = try BIP327Vectors.hexList(test, "expected")
            let (session, nonce, signature) = try sign(test)
            XCTAssertEqual(nonce.bytes, expected[0], context)
            XCTAssertEqual(signature.bytes, expected[1], context)
            XCTAssertTrue(session.verify(signature, publicNonce: nonce, publicKey: secretKey.publicKey), context)
        }

        let errors = try XCTUnwrap(file["error_test_cases"] as? [[String: Any]])
        XCTAssertEqual(errors.count, 5)
        for (number, test) in errors.enumerated() {
            BIP327Vectors.assertThrows(try BIP327Vectors.expectedError(test), "error case \(number): \(test["comment"] as? String ?? "")") {
                try sign(test)
            }
        }
    }
}
