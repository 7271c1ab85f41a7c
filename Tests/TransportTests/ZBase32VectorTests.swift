import Bitcoin
import TestSupport
import XCTest
@testable import Transport

/// `zbase32/zbase32_vectors.json`, generic part: byte strings and their z-base-32 forms.
final class ZBase32VectorTests: XCTestCase {
    private func file() throws -> [String: Any] {
        guard let root = try Vectors.json("zbase32/zbase32_vectors.json") as? [String: Any] else {
            throw MissingField(name: "root")
        }
        return root
    }

    func testAlphabetMatchesVectorFile() throws {
        XCTAssertEqual(try file().string("alphabet"), String(decoding: ZBase32.alphabet, as: UTF8.self))
    }

    func testGenericVectors() throws {
        guard let generic = try file()["generic_vectors"] as? [String: Any],
              let vectors = generic["vectors"] as? [[String: Any]] else { throw MissingField(name: "generic_vectors") }
        var checked = 0
        for vector in vectors {
            let data = try vector.bytes("bytes_hex")
            let encoded = try vector.string("encoded")
            XCTAssertEqual(ZBase32.encode(data), encoded, "encode \(data.hex)")
            XCTAssertEqual(try ZBase32.decode(encoded), data, "decode \(encoded)")
            checked += 1
        }
        XCTAssertEqual(checked, 11)
    }

    func testGenericInvalidVectors() throws {
        guard let generic = try file()["generic_vectors"] as? [String: Any],
              let invalid = generic["invalid"] as? [[String: Any]] else { throw MissingField(name: "invalid") }
        var checked = 0
        for vector in invalid {
            let encoded = try vector.string("encoded")
            XCTAssertThrowsError(try ZBase32.decode(encoded), encoded) { error in
                XCTAssertEqual(error as? IdentityError, .invalidZBase32Character(position: 3))
            }
            checked += 1
        }
        XCTAssertEqual(checked, 1)
    }

    /// Strictness beyond the file: one spelling per byte string.
    func testNonCanonicalFormsRejected() {
        // "9h" is ff; "9j" has a padding bit set; "y" and "yyy" are lengths nothing encodes to.
        XCTAssertEqual(try ZBase32.decode("9h"), [0xff])
        for text in ["9j", "y", "yyy", "yyyyyy"] {
            XCTAssertThrowsError(try ZBase32.decode(text), text) {
                XCTAssertEqual($0 as? IdentityError, .nonCanonicalZBase32)
            }
        }
        // Upper case and the letters z-base-32 leaves out ("l", "v", "0", "2") are not in the alphabet.
        for text in ["YB", "lb", "vb", "0b", "2b", "b\u{e9}"] {
            XCTAssertThrowsError(try ZBase32.decode(text), text)
        }
    }

    func testRoundTripOfEveryLength() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...70 {
            let data = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = ZBase32.encode(data)
            XCTAssertEqual(encoded.count, (length * 8 + 4) / 5)
            XCTAssertEqual(try ZBase32.decode(encoded), data)
        }
    }
}
