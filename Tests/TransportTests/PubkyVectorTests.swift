import Bitcoin
import TestSupport
import XCTest
@testable import Transport

/// `zbase32/zbase32_vectors.json`, pkarr part: the public key's z32 and `pk:` forms, every
/// string form pkarr parses to that key, the invalid key, and the derived examples.
final class PubkyVectorTests: XCTestCase {
    private func section(_ name: String) throws -> [String: Any] {
        guard let root = try Vectors.json("zbase32/zbase32_vectors.json") as? [String: Any],
              let section = root[name] as? [String: Any] else { throw MissingField(name: name) }
        return section
    }

    private func list(_ section: [String: Any], _ name: String) throws -> [[String: Any]] {
        guard let list = section[name] as? [[String: Any]] else { throw MissingField(name: name) }
        return list
    }

    func testValidKeys() throws {
        var checked = 0
        for vector in try list(try section("pkarr_public_keys"), "valid") {
            let key = try vector.bytes("public_key_hex")
            let pubky = try Pubky(publicKey: key)
            XCTAssertEqual(pubky.z32, try vector.string("z32"))
            XCTAssertEqual(pubky.description, try vector.string("z32"))
            XCTAssertEqual(pubky.uri, try vector.string("uri"))
            XCTAssertEqual(try Pubky(parsing: try vector.string("z32")), pubky)
            XCTAssertEqual(try Pubky(parsing: try vector.string("uri")), pubky)
            checked += 1
        }
        XCTAssertEqual(checked, 1)
    }

    func testAcceptedStringForms() throws {
        let pkarr = try section("pkarr_public_keys")
        let expected = try Pubky(publicKey: try list(pkarr, "valid")[0].bytes("public_key_hex"))
        XCTAssertTrue(expected.publicKey.hex.hasPrefix("01b467a3"))
        var checked = 0
        for vector in try list(pkarr, "parse_inputs_resolving_to_public_key_hex_01b467a3") {
            let input = try vector.string("input")
            let test = try vector.string("test")
            XCTAssertEqual(try Pubky(parsing: input), expected, "\(test): \(input)")
            XCTAssertEqual(Pubky(input), expected)
            checked += 1
        }
        XCTAssertEqual(checked, 11)
    }

    func testInvalidKeys() throws {
        var checked = 0
        for vector in try list(try section("pkarr_public_keys"), "invalid") {
            let z32 = try vector.string("z32")
            XCTAssertEqual(try vector.string("expected_error"), "InvalidEd25519PublicKey")
            // Our decoder is strict and refuses the set padding bits before looking at the point.
            XCTAssertThrowsError(try Pubky(parsing: z32)) {
                XCTAssertEqual($0 as? IdentityError, .nonCanonicalZBase32)
            }
            XCTAssertThrowsError(try Pubky(parsing: "pk:" + z32))
            XCTAssertNil(Pubky(z32))
            // The 32 bytes themselves are not an ed25519 point either.
            XCTAssertThrowsError(try Pubky(publicKey: try vector.bytes("decoded_bytes_hex"))) {
                XCTAssertEqual($0 as? IdentityError, .invalidEd25519PublicKey)
            }
            checked += 1
        }
        XCTAssertEqual(checked, 1)
    }

    func testOtherKeysFromPkarrDocs() throws {
        var checked = 0
        for vector in try list(try section("pkarr_public_keys"), "other_keys_seen_in_pkarr_docs") {
            let pubky = try Pubky(parsing: try vector.string("z32"))
            XCTAssertEqual(pubky.publicKey.hex, try vector.string("public_key_hex"))
            checked += 1
        }
        XCTAssertEqual(checked, 1)
    }

    func testDerivedExamples() throws {
        var checked = 0
        for vector in try list(try section("derived_ed25519_examples"), "vectors") {
            let pubky = try Pubky(publicKey: try vector.bytes("public_key_hex"))
            XCTAssertEqual(pubky.z32, try vector.string("z32"))
            XCTAssertEqual(try Pubky(parsing: pubky.z32), pubky)
            checked += 1
        }
        XCTAssertEqual(checked, 2)
    }

    func testMalformedInputsRejected() throws {
        let valid = "yg4gxe7z1r7mr6orids9fh95y7gxhdsxjqi6nngsxxtakqaxr5no"
        let cases: [(String, IdentityError)] = [
            ("", .unrecognizedPubkyForm),
            (String(valid.dropLast()), .unrecognizedPubkyForm),
            (valid + "y", .unrecognizedPubkyForm),
            ("pk:" + String(valid.dropLast()), .unrecognizedPubkyForm),
            ("https://example.com/" + valid, .unrecognizedPubkyForm),
            ("yg4gxe7z1r7mr6orids9fh95y7gxhdsxjqi6nngsxxtakqaxr5nl", .invalidZBase32Character(position: 51)),
            // 32 zero bytes decode fine but are a small-order point.
            (ZBase32.encode([UInt8](repeating: 0, count: 32)), .invalidEd25519PublicKey),
        ]
        for (input, error) in cases {
            XCTAssertThrowsError(try Pubky(parsing: input), input) { XCTAssertEqual($0 as? IdentityError, error, input) }
        }
        // The error text never repeats the input.
        XCTAssertFalse(String(describing: IdentityError.unrecognizedPubkyForm).contains(valid))
    }
}
