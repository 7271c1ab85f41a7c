import TestSupport
import XCTest
@testable import Bitcoin

/// BIP327 PartialSigAgg against `bip327/sig_agg_vectors.json`; every aggregate is also a
/// valid BIP340 signature for the (tweaked) aggregate key.
final class BIP327SigAggVectorTests: XCTestCase {
    func testSigAggValidAndErrorCases() throws {
        let file = try BIP327Vectors.file("sig_agg")
        let keys = try BIP327Vectors.hexList(file, "pubkeys")
        let publicNonces = try BIP327Vectors.hexList(file, "pnonces")
        let tweaks = try BIP327Vectors.hexList(file, "tweaks")
        let partialSignatures = try BIP327Vectors.hexList(file, "psigs").map { try MuSig2PartialSignature($0) }
        let message = try BIP327Vectors.hex(file, "msg")

        func session(_ test: [String: Any]) throws -> MuSig2Session {
            let nonces = try BIP327Vectors.indices(test, "nonce_indices").map { publicNonces[$0] }
            let aggregateNonce = try MuSig2AggregateNonce(try BIP327Vectors.hex(test, "aggnonce"))
            XCTAssertEqual(try MuSig2AggregateNonce(aggregatingSerialized: nonces), aggregateNonce)
            let aggregation = try BIP327Vectors.keyAggregation(
                keys: try BIP327Vectors.indices(test, "key_indices").map { keys[$0] },
                tweaks: try BIP327Vectors.indices(test, "tweak_indices").map { tweaks[$0] },
                xOnly: try XCTUnwrap(test["is_xonly"] as? [Bool]))
            return MuSig2Session(keyAggregation: aggregation, aggregateNonce: aggregateNonce, message: message)
        }

        let valid = try XCTUnwrap(file["valid_test_cases"] as? [[String: Any]])
        XCTAssertEqual(valid.count, 4)
        for (number, test) in valid.enumerated() {
            let session = try session(test)
            let signature = try session.aggregate(try BIP327Vectors.indices(test, "psig_indices").map { partialSignatures[$0] })
            XCTAssertEqual(signature.bytes, try BIP327Vectors.hex(test, "expected"), "valid case \(number)")
            XCTAssertTrue(signature.verify(message: message, publicKey: session.keyAggregation.xOnlyPublicKey), "valid case \(number)")
        }

        let errors = try XCTUnwrap(file["error_test_cases"] as? [[String: Any]])
        XCTAssertEqual(errors.count, 1)
        for (number, test) in errors.enumerated() {
            let session = try session(test)
            let selected = try BIP327Vectors.indices(test, "psig_indices").map { partialSignatures[$0] }
            BIP327Vectors.assertThrows(try BIP327Vectors.expectedError(test), "error case \(number)") {
                try session.aggregate(selected)
            }
        }
    }
}
