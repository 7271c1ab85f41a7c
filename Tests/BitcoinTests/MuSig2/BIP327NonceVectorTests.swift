import TestSupport
import XCTest
@testable import Bitcoin

/// BIP327 NonceGen and NonceAgg against `bip327/nonce_gen_vectors.json` and
/// `bip327/nonce_agg_vectors.json`, every valid and error case.
final class BIP327NonceVectorTests: XCTestCase {
    func testNonceGen() throws {
        let file = try BIP327Vectors.file("nonce_gen")
        let cases = try XCTUnwrap(file["test_cases"] as? [[String: Any]])
        XCTAssertEqual(cases.count, 4)
        for (number, test) in cases.enumerated() {
            let secretKey = try BIP327Vectors.optionalHex(test, "sk").map { try PrivateKey($0) }
            let publicKey = try PublicKey(try BIP327Vectors.hex(test, "pk"))
            let nonce = try MuSig2SecretNonce(randomness: try BIP327Vectors.hex(test, "rand_"), publicKey: publicKey,
                                              secretKey: secretKey,
                                              aggregateKeyBytes: BIP327Vectors.optionalHex(test, "aggpk"),
                                              message: BIP327Vectors.optionalHex(test, "msg"),
                                              extraInput: BIP327Vectors.optionalHex(test, "extra_in"))
            XCTAssertEqual(nonce.publicNonce.bytes, try BIP327Vectors.hex(test, "expected_pubnonce"), "case \(number)")
            let serialized = nonce.withScalars { ($0?.bytes ?? []) + ($1?.bytes ?? []) } + nonce.publicKey.compressed
            XCTAssertEqual(serialized, try BIP327Vectors.hex(test, "expected_secnonce"), "case \(number)")
        }
    }

    /// "No message" and "an empty message" are different inputs (the prefix tells them apart).
    func testNonceGenTellsNoMessageFromEmptyMessage() throws {
        let key = try PrivateKey([UInt8](repeating: 0x02, count: 32))
        let rand = [UInt8](repeating: 0x0F, count: 32)
        let none = try MuSig2SecretNonce(randomness: rand, publicKey: key.publicKey, secretKey: key,
                                         aggregateKeyBytes: nil, message: nil, extraInput: nil)
        let empty = try MuSig2SecretNonce(randomness: rand, publicKey: key.publicKey, secretKey: key,
                                          aggregateKeyBytes: nil, message: [], extraInput: nil)
        XCTAssertNotEqual(none.publicNonce, empty.publicNonce)
    }

    /// The public NonceGen draws fresh randomness every time: the same inputs never give the
    /// same nonce twice.
    func testNonceGenIsFreshEachTime() throws {
        let key = try PrivateKey([UInt8](repeating: 0x02, count: 32))
        let message = [UInt8](repeating: 1, count: 32)
        let first = try MuSig2SecretNonce(publicKey: key.publicKey, secretKey: key, message: message)
        let second = try MuSig2SecretNonce(publicKey: key.publicKey, secretKey: key, message: message)
        XCTAssertNotEqual(first.publicNonce, second.publicNonce)
        XCTAssertThrowsError(try MuSig2SecretNonce(randomness: [1], publicKey: key.publicKey, secretKey: nil,
                                                   aggregateKeyBytes: nil, message: nil, extraInput: nil).publicNonce) {
            XCTAssertEqual($0 as? BitcoinError, .musig2(.invalidLength(what: "NonceGen randomness", expected: 32, got: 1)))
        }
    }

    func testNonceAgg() throws {
        let file = try BIP327Vectors.file("nonce_agg")
        let nonces = try BIP327Vectors.hexList(file, "pnonces")
        let valid = try XCTUnwrap(file["valid_test_cases"] as? [[String: Any]])
        XCTAssertEqual(valid.count, 2)
        for (number, test) in valid.enumerated() {
            let selected = try BIP327Vectors.indices(test, "pnonce_indices").map { nonces[$0] }
            let aggregate = try MuSig2AggregateNonce(aggregatingSerialized: selected)
            let expected = try BIP327Vectors.hex(test, "expected")
            XCTAssertEqual(aggregate.bytes, expected, "valid case \(number)")
            // The aggregate parses back to itself, infinity included.
            XCTAssertEqual(try MuSig2AggregateNonce(expected), aggregate, "valid case \(number)")
        }
        XCTAssertNil(try MuSig2AggregateNonce(try BIP327Vectors.hex(valid[1], "expected")).second, "the second sum is infinity")

        let errors = try XCTUnwrap(file["error_test_cases"] as? [[String: Any]])
        XCTAssertEqual(errors.count, 3)
        for (number, test) in errors.enumerated() {
            let selected = try BIP327Vectors.indices(test, "pnonce_indices").map { nonces[$0] }
            BIP327Vectors.assertThrows(try BIP327Vectors.expectedError(test), "error case \(number)") {
                try MuSig2AggregateNonce(aggregatingSerialized: selected)
            }
        }
    }
}
