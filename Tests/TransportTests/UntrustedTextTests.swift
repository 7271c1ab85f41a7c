import Transport
import XCTest

/// Issue 22: a peer's text cannot forge or flood a log line.
final class UntrustedTextTests: XCTestCase {
    func testControlCharactersQuotesAndNonASCIIAreEscaped() {
        XCTAssertEqual(UntrustedText.quoted("abc-123"), "\"abc-123\"")
        XCTAssertEqual(UntrustedText.quoted("x\nprovider: FAKE"), "\"x\\u{a}provider: FAKE\"")
        XCTAssertEqual(UntrustedText.quoted("a\"b\\c\r\u{1b}[31m"), "\"a\\u{22}b\\u{5c}c\\u{d}\\u{1b}[31m\"")
        XCTAssertEqual(UntrustedText.quoted("é"), "\"\\u{e9}\"")
        XCTAssertFalse(UntrustedText.quoted("x\ny\r\nz\u{2028}w").contains(where: { $0.isNewline }))
    }

    func testLongTextIsCutAndItsLengthSaid() {
        let long = String(repeating: "a", count: 256)
        let quoted = UntrustedText.quoted(long)
        XCTAssertEqual(quoted, "\"" + String(repeating: "a", count: 64) + "…\" (256 characters)")
        XCTAssertEqual(UntrustedText.quoted(String(repeating: "b", count: 64)), "\"" + String(repeating: "b", count: 64) + "\"")
    }
}
