import XCTest
@testable import Bitcoin

/// BIP327 KeySort and KeyAgg (with ApplyTweak) against `bip327/key_sort_vectors.json` and
/// `bip327/key_agg_vectors.json`, including every error case with the blamed signer.
final class BIP327KeyAggVectorTests: XCTestCase {
    func testKeySort() throws {
        let file = try XCTUnwrap(try Vectors.json("bip327/key_sort_vectors.json") as? [String: Any])
        let keys = try XCTUnwrap(file["pubkeys"] as? [String]).map { bytes($0) }
        let expected = try XCTUnwrap(file["sorted_pubkeys"] as? [String]).map { bytes($0) }
        XCTAssertEqual(keys.count, 6)
        XCTAssertEqual(expected.count, keys.count)
        XCTAssertEqual(MuSig2KeyAggregation.sorted(serializedKeys: keys), expected)
        // The parsed-key sort agrees on the keys that are valid points.
        let parsed = keys.compactMap { try? PublicKey($0) }
        XCTAssertEqual(MuSig2KeyAggregation.sorted(parsed).map(\.compressed),
                       expected.filter { e in parsed.contains { $0.compressed == e } })
    }

    func testKeyAggValidAndErrorCases() throws {
        let file = try XCTUnwrap(try Vectors.json("bip327/key_agg_vectors.json") as? [String: Any])
        let keys = try XCTUnwrap(file["pubkeys"] as? [String]).map { bytes($0) }
        let tweaks = try XCTUnwrap(file["tweaks"] as? [String]).map { bytes($0) }

        let valid = try XCTUnwrap(file["valid_test_cases"] as? [[String: Any]])
        XCTAssertEqual(valid.count, 4)
        for (number, test) in valid.enumerated() {
            let indices = try XCTUnwrap(test["key_indices"] as? [Int])
            let aggregate = try MuSig2KeyAggregation(serializedKeys: indices.map { keys[$0] })
            XCTAssertEqual(aggregate.xOnlyPublicKey.bytes.hex.uppercased(), test["expected"] as? String, "valid case \(number)")
        }

        let errors = try XCTUnwrap(file["error_test_cases"] as? [[String: Any]])
        XCTAssertEqual(errors.count, 5)
        for (number, test) in errors.enumerated() {
            let context = "error case \(number): \(test["comment"] as? String ?? "")"
            let keyIndices = try XCTUnwrap(test["key_indices"] as? [Int])
            let tweakIndices = try XCTUnwrap(test["tweak_indices"] as? [Int])
            let xOnly = try XCTUnwrap(test["is_xonly"] as? [Bool])
            let error = try XCTUnwrap(test["error"] as? [String: Any])
            let expected: BitcoinError
            switch error["type"] as? String {
            case "invalid_contribution":
                XCTAssertEqual(error["contrib"] as? String, "pubkey", context)
                expected = .invalidSignerPublicKey(signer: try XCTUnwrap(error["signer"] as? Int))
            case "value":
                switch error["message"] as? String {
                case "The tweak must be less than n.": expected = .tweakOutOfRange
                case "The result of tweaking cannot be infinity.": expected = .tweakResultIsInfinity
                default: return XCTFail("\(context): unknown message \(error)")
                }
            default:
                return XCTFail("\(context): unknown error type \(error)")
            }
            XCTAssertThrowsError(try {
                var aggregate = try MuSig2KeyAggregation(serializedKeys: keyIndices.map { keys[$0] })
                for (tweak, isXOnly) in zip(tweakIndices, xOnly) {
                    aggregate = try aggregate.tweaked(by: tweaks[tweak], xOnly: isXOnly)
                }
            }(), context) { thrown in
                XCTAssertEqual(thrown as? BitcoinError, expected, context)
            }
        }
    }

    /// ApplyTweak keeps Q = gacc·Q0 + tacc·G; checked against libsecp256k1 directly.
    func testTweakAccumulatorsDescribeTheTweakedKey() throws {
        let keys = (1...3).map { _ in PrivateKey.random().publicKey }
        let untweaked = try MuSig2KeyAggregation(publicKeys: keys)
        var aggregate = untweaked
        for round in 0..<6 {
            aggregate = try aggregate.tweaked(by: TaggedHash.hash(tag: "test", [UInt8(round)]), xOnly: round % 2 == 0)
        }
        // gacc is -1 or 1; Q = gacc·Q0 + tacc·G.
        let base = aggregate.signAccumulatorNegated ? untweaked.aggregateKey.negated : untweaked.aggregateKey
        XCTAssertEqual(try base.adding(tweak: aggregate.tweakAccumulator), aggregate.aggregateKey)
        XCTAssertNotEqual(try base.negated.adding(tweak: aggregate.tweakAccumulator), aggregate.aggregateKey)
    }

    func testOrderMattersAndIsKept() throws {
        let provider = PrivateKey.random().publicKey
        let client = PrivateKey.random().publicKey
        let forward = try MuSig2KeyAggregation(publicKeys: [provider, client])
        let backward = try MuSig2KeyAggregation(publicKeys: [client, provider])
        XCTAssertEqual(forward.publicKeys, [provider, client])
        XCTAssertNotEqual(forward.xOnlyPublicKey, backward.xOnlyPublicKey)
        XCTAssertThrowsError(try MuSig2KeyAggregation(publicKeys: []))
        // A 65-byte uncompressed key is a valid point but not a BIP327 contribution.
        XCTAssertThrowsError(try MuSig2KeyAggregation(serializedKeys: [provider.compressed, client.serialized(compressed: false)])) {
            XCTAssertEqual($0 as? BitcoinError, .invalidSignerPublicKey(signer: 1))
        }
    }
}
