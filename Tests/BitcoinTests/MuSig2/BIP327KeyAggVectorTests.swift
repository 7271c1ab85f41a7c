import TestSupport
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
                expected = .musig2(.invalidContribution(signer: try XCTUnwrap(error["signer"] as? Int), .publicKey))
            case "value":
                switch error["message"] as? String {
                case "The tweak must be less than n.": expected = .musig2(.tweakOutOfRange)
                case "The result of tweaking cannot be infinity.": expected = .musig2(.tweakResultIsInfinity)
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
        XCTAssertThrowsError(try MuSig2KeyAggregation(publicKeys: [])) {
            XCTAssertEqual($0 as? BitcoinError, .musig2(.noPublicKeys))
        }
        // A 65-byte uncompressed key is a valid point but not a BIP327 contribution.
        XCTAssertThrowsError(try MuSig2KeyAggregation(serializedKeys: [provider.compressed, client.serialized(compressed: false)])) {
            XCTAssertEqual($0 as? BitcoinError, .musig2(.invalidContribution(signer: 1, .publicKey)))
        }
    }

    /// Boltz's MuSig2 swap key (boltz-backend's integration snapshot): KeyAgg of [Boltz key,
    /// their key] in that order, unsorted, as the HTLC's internal key; then the x-only
    /// TapTweak, done both as a BIP327 ApplyTweak and as a BIP341 tweak.
    func testBoltzUnsortedAggregateKeyAndTaprootTweak() throws {
        let file = try XCTUnwrap(try Vectors.json("boltz/boltz_swap_vectors.json") as? [String: Any])
        let musig = try XCTUnwrap(file["boltz_backend_ts_musig"] as? [String: Any])
        let boltz = try PrivateKey(bytes(try XCTUnwrap(musig["boltz_private_key"] as? String))).publicKey
        let theirs = try PublicKey(bytes(try XCTUnwrap(musig["their_public_key"] as? String)))
        let aggregate = try MuSig2KeyAggregation(publicKeys: [boltz, theirs])
        XCTAssertEqual(aggregate.xOnlyPublicKey.bytes.hex, musig["expected_aggregate_key_xonly"] as? String)
        let sorted = try MuSig2KeyAggregation(publicKeys: MuSig2KeyAggregation.sorted([boltz, theirs]))
        if [boltz, theirs] != [boltz, theirs].sorted() {
            XCTAssertNotEqual(sorted.xOnlyPublicKey, aggregate.xOnlyPublicKey, "sorting would change the key")
        }

        // The Merkle root is a value computed by the vector file's author from the leaves.
        let computed = try XCTUnwrap((musig["computed"] as? [String: Any])?["bitcoin"] as? [String: Any])
        let merkleRoot = bytes(try XCTUnwrap(computed["merkle_root"] as? String))
        let expectedOutput = try XCTUnwrap(musig["expected_tweaked_key_bitcoin"] as? String)
        let output = try aggregate.xOnlyPublicKey.tapTweaked(merkleRoot: merkleRoot)
        XCTAssertEqual(output.key.bytes.hex, expectedOutput)
        XCTAssertEqual(output.parityOdd, (computed["output_key_parity"] as? Int) == 1)
        let tweak = try TaprootTweak.tweak(internalKey: aggregate.xOnlyPublicKey, merkleRoot: merkleRoot)
        XCTAssertEqual(try aggregate.tweaked(by: tweak, xOnly: true).xOnlyPublicKey.bytes.hex, expectedOutput)
    }
}
