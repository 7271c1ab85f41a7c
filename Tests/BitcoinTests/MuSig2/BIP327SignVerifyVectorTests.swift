import TestSupport
import XCTest
@testable import Bitcoin

/// BIP327 Sign and PartialSigVerify against `bip327/sign_verify_vectors.json`: every valid
/// case, sign error, verify failure and verify error.
final class BIP327SignVerifyVectorTests: XCTestCase {
    private var file: [String: Any] = [:]
    private var secretKey: PrivateKey!
    private var keys: [[UInt8]] = []
    private var secretNonces: [[UInt8]] = []
    private var publicNonces: [[UInt8]] = []
    private var aggregateNonces: [[UInt8]] = []
    private var messages: [[UInt8]] = []

    override func setUpWithError() throws {
        file = try BIP327Vectors.file("sign_verify")
        secretKey = try PrivateKey(try BIP327Vectors.hex(file, "sk"))
        keys = try BIP327Vectors.hexList(file, "pubkeys")
        secretNonces = try BIP327Vectors.hexList(file, "secnonces")
        publicNonces = try BIP327Vectors.hexList(file, "pnonces")
        aggregateNonces = try BIP327Vectors.hexList(file, "aggnonces")
        messages = try BIP327Vectors.hexList(file, "msgs")
    }

    func testValidCasesSignAndVerify() throws {
        let cases = try XCTUnwrap(file["valid_test_cases"] as? [[String: Any]])
        XCTAssertEqual(cases.count, 6)
        for (number, test) in cases.enumerated() {
            let context = "valid case \(number): \(test["comment"] as? String ?? "")"
            let signerKeys = try BIP327Vectors.indices(test, "key_indices").map { keys[$0] }
            let nonces = try BIP327Vectors.indices(test, "nonce_indices").map { publicNonces[$0] }
            let aggregateNonce = try MuSig2AggregateNonce(aggregateNonces[try XCTUnwrap(test["aggnonce_index"] as? Int)])
            // The vectors' aggregate nonce is NonceAgg of the listed nonces.
            XCTAssertEqual(try MuSig2AggregateNonce(aggregatingSerialized: nonces), aggregateNonce, context)
            let signer = try XCTUnwrap(test["signer_index"] as? Int)
            let session = MuSig2Session(keyAggregation: try MuSig2KeyAggregation(serializedKeys: signerKeys),
                                        aggregateNonce: aggregateNonce,
                                        message: messages[try XCTUnwrap(test["msg_index"] as? Int)])
            let signature = try session.sign(try MuSig2SecretNonce(serialized: secretNonces[0]), with: secretKey)
            XCTAssertEqual(signature.bytes, try BIP327Vectors.hex(test, "expected"), context)
            XCTAssertTrue(session.verify(signature, publicNonce: try MuSig2PublicNonce(nonces[signer]),
                                         publicKey: try PublicKey(signerKeys[signer])), context)
        }
    }

    func testSignErrorCases() throws {
        let cases = try XCTUnwrap(file["sign_error_test_cases"] as? [[String: Any]])
        XCTAssertEqual(cases.count, 6)
        for (number, test) in cases.enumerated() {
            let context = "sign error case \(number): \(test["comment"] as? String ?? "")"
            let signerKeys = try BIP327Vectors.indices(test, "key_indices").map { keys[$0] }
            let aggregateNonce = aggregateNonces[try XCTUnwrap(test["aggnonce_index"] as? Int)]
            let message = messages[try XCTUnwrap(test["msg_index"] as? Int)]
            let secretNonce = secretNonces[try XCTUnwrap(test["secnonce_index"] as? Int)]
            // In BIP327's order: key aggregation, the aggregate nonce, then Sign's own checks.
            BIP327Vectors.assertThrows(try BIP327Vectors.expectedError(test), context) {
                let session = MuSig2Session(keyAggregation: try MuSig2KeyAggregation(serializedKeys: signerKeys),
                                            aggregateNonce: try MuSig2AggregateNonce(aggregateNonce), message: message)
                return try session.sign(try MuSig2SecretNonce(serialized: secretNonce), with: secretKey)
            }
        }
    }

    func testVerifyFailCases() throws {
        let cases = try XCTUnwrap(file["verify_fail_test_cases"] as? [[String: Any]])
        XCTAssertEqual(cases.count, 3)
        for (number, test) in cases.enumerated() {
            let context = "verify fail case \(number): \(test["comment"] as? String ?? "")"
            let signerKeys = try BIP327Vectors.indices(test, "key_indices").map { keys[$0] }
            let nonces = try BIP327Vectors.indices(test, "nonce_indices").map { publicNonces[$0] }
            let signer = try XCTUnwrap(test["signer_index"] as? Int)
            let session = MuSig2Session(keyAggregation: try MuSig2KeyAggregation(serializedKeys: signerKeys),
                                        aggregateNonce: try MuSig2AggregateNonce(aggregatingSerialized: nonces),
                                        message: messages[try XCTUnwrap(test["msg_index"] as? Int)])
            let signature = try MuSig2PartialSignature(try BIP327Vectors.hex(test, "sig"))
            XCTAssertFalse(session.verify(signature, publicNonce: try MuSig2PublicNonce(nonces[signer]),
                                          publicKey: try PublicKey(signerKeys[signer])), context)
        }
    }

    func testVerifyErrorCases() throws {
        let cases = try XCTUnwrap(file["verify_error_test_cases"] as? [[String: Any]])
        XCTAssertEqual(cases.count, 2)
        for (number, test) in cases.enumerated() {
            let context = "verify error case \(number): \(test["comment"] as? String ?? "")"
            let signerKeys = try BIP327Vectors.indices(test, "key_indices").map { keys[$0] }
            let nonces = try BIP327Vectors.indices(test, "nonce_indices").map { publicNonces[$0] }
            let signer = try XCTUnwrap(test["signer_index"] as? Int)
            let message = messages[try XCTUnwrap(test["msg_index"] as? Int)]
            let signature = try MuSig2PartialSignature(try BIP327Vectors.hex(test, "sig"))
            // PartialSigVerify in BIP327's order: NonceAgg, then KeyAgg in the session.
            BIP327Vectors.assertThrows(try BIP327Vectors.expectedError(test), context) {
                let aggregateNonce = try MuSig2AggregateNonce(aggregatingSerialized: nonces)
                let session = MuSig2Session(keyAggregation: try MuSig2KeyAggregation(serializedKeys: signerKeys),
                                            aggregateNonce: aggregateNonce, message: message)
                return session.verify(signature, publicNonce: try MuSig2PublicNonce(nonces[signer], signer: signer),
                                      publicKey: try PublicKey(signerKeys[signer]))
            }
        }
    }
}
