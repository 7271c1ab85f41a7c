import TestSupport
import XCTest
@testable import Bitcoin

/// Base58 and Base58Check: known encodings, round trips with leading zeros, and the
/// errors a mistyped string must produce.
final class Base58CheckTests: XCTestCase {
    func testKnownBase58Encodings() {
        // From Bitcoin Core's base58_encode_decode.json.
        let cases: [(String, String)] = [
            ("", ""),
            ("61", "2g"),
            ("626262", "a3gV"),
            ("636363", "aPEr"),
            ("73696d706c792061206c6f6e6720737472696e67", "2cFupjhnEsSn59qHXstmK2ffpLv2"),
            ("00eb15231dfceb60925886b67d065299925915aeb172c06647", "1NS17iag9jJgTHD1VXjvLCEnZuQ3rJDE9L"),
            ("516b6fcd0f", "ABnLTmg"),
            ("00000000000000000000", "1111111111"),
        ]
        for (hex, encoded) in cases {
            XCTAssertEqual(Base58.encode(bytes(hex)), encoded, hex)
            XCTAssertEqual(try Base58.decode(encoded), bytes(hex), encoded)
        }
    }

    func testRoundTripKeepsLeadingZeros() throws {
        for zeros in 0...4 {
            for length in 0...40 {
                let payload = [UInt8](repeating: 0, count: zeros) + (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 91 &+ 7) }
                let encoded = Base58Check.encode(payload)
                XCTAssertEqual(encoded.prefix { $0 == "1" }.count, zeros, "one '1' per leading zero")
                XCTAssertEqual(try Base58Check.decode(encoded), payload)
            }
        }
    }

    func testMainnetP2PKHOfZeroHash() throws {
        // Version 0x00 and a zero hash: 21 zero bytes give 21 leading '1's, then the checksum.
        let encoded = Base58Check.encode([UInt8](repeating: 0, count: 21))
        XCTAssertEqual(encoded, "1111111111111111111114oLvT2")
    }

    func testCharactersOutsideAlphabetAreRejected() {
        for bad in ["0", "O", "I", "l", " ", "+", "é"] {
            XCTAssertThrowsError(try Base58.decode("1A" + bad + "B")) { error in
                XCTAssertTrue(String(describing: error).contains("character 3 is not a base58 character"), "\(error)")
            }
        }
    }

    func testBadChecksumIsRejected() throws {
        let good = Base58Check.encode(bytes("00eb15231dfceb60925886b67d065299925915aeb1"))
        var characters = Array(good)
        characters[characters.count - 1] = characters.last == "2" ? "3" : "2"
        XCTAssertThrowsError(try Base58Check.decode(String(characters))) { error in
            XCTAssertEqual(error as? BitcoinError, .invalidAddress("base58 checksum mismatch: check the string for a typo"))
        }
    }

    func testTooShortForChecksumIsRejected() {
        XCTAssertThrowsError(try Base58Check.decode("2g")) { error in
            XCTAssertEqual(error as? BitcoinError, .invalidAddress("base58 string is too short to hold a checksum"))
        }
    }
}
