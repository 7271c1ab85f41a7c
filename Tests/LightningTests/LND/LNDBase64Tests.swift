import Foundation
import Lightning
import XCTest

/// LND's base64 against RFC 4648's vectors and Foundation's encoder.
final class LNDBase64Tests: XCTestCase {
    /// RFC 4648 section 10.
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ]

    func testRFC4648Vectors() {
        for (plain, encoded) in Self.vectors {
            XCTAssertEqual(LNDBase64.encode(Array(plain.utf8)), encoded, plain)
            XCTAssertEqual(LNDBase64.decode(encoded), Array(plain.utf8), encoded)
            // Unpadded input, as LND's JSON reader also takes.
            XCTAssertEqual(LNDBase64.decode(encoded.replacingOccurrences(of: "=", with: "")), Array(plain.utf8), encoded)
        }
    }

    func testAgreesWithFoundationOnEveryLength() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<100 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let standard = Data(bytes).base64EncodedString()
            XCTAssertEqual(LNDBase64.encode(bytes), standard)
            let urlSafe = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            XCTAssertEqual(LNDBase64.encodeURLSafe(bytes), urlSafe)
            XCTAssertEqual(LNDBase64.decode(standard), bytes)
            XCTAssertEqual(LNDBase64.decode(urlSafe), bytes)
        }
    }

    func testRefusesWhatIsNotBase64() {
        for text in ["Zg=a", "Z", "Zm9v!", "Zm9vY===", "Zm 9v", "=Zm9"] {
            XCTAssertNil(LNDBase64.decode(text), text)
        }
    }
}
