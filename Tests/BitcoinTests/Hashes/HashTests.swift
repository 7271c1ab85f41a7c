import XCTest
@testable import Bitcoin

/// SHA-256, HMAC-SHA512 and tagged hashes against published values (FIPS 180-2 examples,
/// RFC 4231 test case 2, and the BIP340 challenge tag).
final class HashTests: XCTestCase {
    func testSHA256KnownAnswers() {
        XCTAssertEqual(SHA256.hash([]).hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hash(Array("abc".utf8)).hex,
                       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // Bitcoin's double SHA-256 of the empty string.
        XCTAssertEqual(SHA256.doubleHash([]).hex, "5df6e0e2761359d30a8275058e299fcc0381534545f55cf43e41983f5d4c9456")
    }

    func testIncrementalSHA256MatchesOneShot() {
        let data = Array(0..<200).map { UInt8($0) }
        var hasher = SHA256Hasher()
        hasher.update(Array(data[..<77]))
        hasher.update(Array(data[77...]))
        XCTAssertEqual(hasher.finalize(), SHA256.hash(data))
    }

    func testHMACSHA512RFC4231Case2() {
        let mac = HMACSHA512.authenticate(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        XCTAssertEqual(mac.hex, "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737")
    }

    func testTaggedHashIsDomainSeparated() {
        let data = Array(repeating: UInt8(7), count: 32)
        let tagHash = SHA256.hash(Array("BIP0340/challenge".utf8))
        XCTAssertEqual(TaggedHash.hash(tag: "BIP0340/challenge", data), SHA256.hash(tagHash + tagHash + data))
        XCTAssertNotEqual(TaggedHash.hash(tag: "BIP0340/aux", data), TaggedHash.hash(tag: "BIP0340/nonce", data))
    }

    func testHexRoundTripAndRejection() {
        XCTAssertEqual([UInt8](hex: "00ffA0")?.hex, "00ffa0")
        XCTAssertNil([UInt8](hex: "abc"))
        XCTAssertNil([UInt8](hex: "zz"))
    }
}
