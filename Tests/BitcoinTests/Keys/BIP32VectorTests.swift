import TestSupport
import XCTest
@testable import Bitcoin

/// BIP32 test vectors 1-5 from `bip32/bip32_vectors.json`: every chain step of vectors 1-4
/// (xprv and xpub derived from the seed, parsed back, and CKDpub where the step allows it),
/// and every invalid extended key of vector 5.
final class BIP32VectorTests: XCTestCase {
    private func vectors() throws -> [String: Any] {
        try XCTUnwrap(try Vectors.json("bip32/bip32_vectors.json") as? [String: Any])
    }

    func testValidVectorsDeriveEveryChain() throws {
        let valid = try XCTUnwrap(try vectors()["valid"] as? [[String: Any]])
        XCTAssertEqual(valid.count, 4)
        var checkedChains = 0
        var checkedPublicDerivations = 0
        for vector in valid {
            let number = try XCTUnwrap(vector["vector"] as? Int)
            let master = try ExtendedKey(seed: bytes(try XCTUnwrap(vector["seed_hex"] as? String)))
            let chains = try XCTUnwrap(vector["chains"] as? [[String: Any]])
            var previous: (key: ExtendedKey, xpub: String)?
            for chain in chains {
                let path = try XCTUnwrap(chain["path"] as? String)
                let context = "vector \(number) \(path)"
                let indices = try XCTUnwrap(chain["path_indices"] as? [NSNumber]).map { $0.uint32Value }
                let xprv = try XCTUnwrap(chain["ext_prv"] as? String)
                let xpub = try XCTUnwrap(chain["ext_pub"] as? String)

                // Both path notations parse to the listed indices.
                XCTAssertEqual(try DerivationPath(path).indices, indices, context)
                let apostrophes = try XCTUnwrap(chain["path_bip32_notation"] as? String)
                XCTAssertEqual(try DerivationPath(apostrophes).indices, indices, context)
                XCTAssertEqual(try DerivationPath(apostrophes).description, apostrophes, context)

                let key = try master.derived(DerivationPath(indices: indices))
                XCTAssertEqual(key.base58, xprv, "\(context) xprv")
                XCTAssertEqual(key.neutered.base58, xpub, "\(context) xpub")

                let decoded = try XCTUnwrap(chain["decoded"] as? [String: Any])
                XCTAssertEqual(Int(key.depth), decoded["depth"] as? Int, context)
                XCTAssertEqual(key.parentFingerprint.hex, decoded["parent_fingerprint"] as? String, context)
                XCTAssertEqual(key.childNumber, (decoded["child_number"] as? NSNumber)?.uint32Value, context)
                XCTAssertEqual(key.chainCode.hex, decoded["chain_code"] as? String, context)
                XCTAssertEqual(key.publicKey.compressed.hex, decoded["public_key"] as? String, context)
                XCTAssertEqual(key.privateKey?.bytes.hex, decoded["private_key"] as? String, context)
                XCTAssertEqual(key.identifier.hex, chain["identifier_hash160"] as? String, context)
                XCTAssertEqual(key.fingerprint.hex, chain["fingerprint"] as? String, context)

                // Parsing gives back the same key, and re-serializes to the same string.
                let parsedPrivate = try ExtendedKey(base58: xprv)
                XCTAssertEqual(parsedPrivate, key, context)
                XCTAssertEqual(parsedPrivate.base58, xprv, context)
                let parsedPublic = try ExtendedKey(base58: xpub)
                XCTAssertEqual(parsedPublic, key.neutered, context)
                XCTAssertFalse(parsedPublic.isPrivate, context)
                XCTAssertEqual(parsedPublic.base58, xpub, context)

                // CKDpub from the parent's xpub matches where the last step is non-hardened.
                if let canDerivePublicly = chain["public_derivation_from_parent_xpub"] as? Bool,
                   let previous, let last = indices.last {
                    let parent = try ExtendedKey(base58: previous.xpub)
                    if canDerivePublicly {
                        XCTAssertEqual(try parent.derivedChild(last).base58, xpub, context)
                        checkedPublicDerivations += 1
                    } else {
                        XCTAssertThrowsError(try parent.derivedChild(last), context)
                    }
                    // And CKDpriv from the previous private key, one step at a time.
                    XCTAssertEqual(try previous.key.derivedChild(last), key, context)
                }
                previous = (key, xpub)
                checkedChains += 1
            }
        }
        XCTAssertEqual(checkedChains, 17, "vectors 1-4 have 6 + 6 + 2 + 3 chains")
        XCTAssertGreaterThan(checkedPublicDerivations, 0)
    }

    func testEveryInvalidExtendedKeyOfVector5IsRejected() throws {
        let invalid = try XCTUnwrap(try vectors()["invalid_extended_keys"] as? [[String: Any]])
        XCTAssertEqual(invalid.count, 16)
        for entry in invalid {
            let string = try XCTUnwrap(entry["ext_key"] as? String)
            let reason = try XCTUnwrap(entry["reason"] as? String)
            XCTAssertThrowsError(try ExtendedKey(base58: string), reason) { error in
                guard case BitcoinError.invalidExtendedKey(let message) = error else {
                    return XCTFail("\(reason): wrong error \(error)")
                }
                // The rejection names the same fault as the BIP's reason.
                let expectedWords: String
                switch reason {
                case let r where r.contains("mismatch"): expectedWords = "version says"
                case let r where r.contains("prefix"): expectedWords = "key data starts with"
                case let r where r.contains("fingerprint"): expectedWords = "non-zero parent fingerprint"
                case let r where r.contains("non-zero index"): expectedWords = "non-zero child number"
                case let r where r.contains("unknown extended key version"): expectedWords = "unknown version"
                case let r where r.contains("private key"): expectedWords = "not below the curve order"
                case let r where r.contains("invalid pubkey"): expectedWords = "not a point"
                case let r where r.contains("checksum"): expectedWords = "checksum"
                default: return XCTFail("unknown reason in vector file: \(reason)")
                }
                XCTAssertTrue(message.contains(expectedWords), "\(reason): got \"\(message)\"")
            }
            // Where the payload was decodable, the 78-byte parser alone rejects it too.
            if let payloadHex = entry["payload_hex"] as? String {
                XCTAssertThrowsError(try ExtendedKey(serialized: bytes(payloadHex)), reason)
            }
        }
    }

    func testTestnetVersionsRoundTrip() throws {
        let master = try ExtendedKey(seed: Array(repeating: 0x42, count: 32), network: .testnet)
        XCTAssertTrue(master.base58.hasPrefix("tprv"))
        XCTAssertTrue(master.neutered.base58.hasPrefix("tpub"))
        XCTAssertEqual(try ExtendedKey(base58: master.base58), master)
        XCTAssertEqual(try ExtendedKey(base58: master.neutered.base58), master.neutered)
    }

    func testBadInputsAreRejected() throws {
        XCTAssertThrowsError(try ExtendedKey(seed: Array(repeating: 1, count: 15)))
        XCTAssertThrowsError(try ExtendedKey(seed: Array(repeating: 1, count: 65)))
        let master = try ExtendedKey(seed: Array(repeating: 7, count: 16))
        // A changed character breaks the checksum; a truncated string has the wrong length.
        var characters = Array(master.base58)
        characters[20] = characters[20] == "A" ? "B" : "A"
        XCTAssertThrowsError(try ExtendedKey(base58: String(characters)))
        XCTAssertThrowsError(try ExtendedKey(base58: Base58Check.encode(Array(master.serialized.dropLast()))))
        XCTAssertThrowsError(try ExtendedKey(base58: "xprv0OIl"))
        XCTAssertFalse(master.description.contains(master.privateKey!.bytes.hex))
        XCTAssertFalse(master.description.contains(master.chainCode.hex))
    }

    func testDerivationPathParsing() throws {
        XCTAssertEqual(try DerivationPath("m").indices, [])
        XCTAssertEqual(try DerivationPath("m/0'/1/2h/3H").indices, [0x8000_0000, 1, 0x8000_0002, 0x8000_0003])
        XCTAssertEqual(try DerivationPath("m/2147483647'").indices, [0xFFFF_FFFF])
        for bad in ["", "0/1", "m/", "m//1", "m/2147483648", "m/-1", "m/+1", "m/1''", "m/x", "M/1", "m/ 1"] {
            XCTAssertThrowsError(try DerivationPath(bad), bad)
        }
    }
}
