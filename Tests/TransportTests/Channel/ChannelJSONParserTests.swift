import XCTest
@testable import Transport

final class ChannelJSONParserTests: XCTestCase {
    private func parse(_ text: String, maxDepth: Int = 32) throws -> JSONValue {
        try JSONParser.parse(Array(text.utf8), limits: JSONParser.Limits(maxDepth: maxDepth))
    }

    func testAcceptsTable() throws {
        let table: [(String, JSONValue)] = [
            ("null", .null),
            (" true ", .bool(true)),
            ("false", .bool(false)),
            ("0", .number("0")),
            ("-12.5e+3", .number("-12.5e+3")),
            ("21000000000000000", .number("21000000000000000")),
            ("1E9", .number("1E9")),
            ("\"\"", .string("")),
            (#""a\"b\\c\/d\b\f\n\r\t""#, .string("a\"b\\c/d\u{08}\u{0C}\n\r\t")),
            (#""\u00e9\u20AC""#, .string("é€")),
            (#""\ud83d\ude00""#, .string("😀")),
            (#""\u0000""#, .string("\u{0}")),
            ("\"héllo ₿\"", .string("héllo ₿")),
            // An escape after plain text, and plain text after an escape.
            (#""deadbeef\"tail""#, .string("deadbeef\"tail")),
            (#""\u00e9 and more""#, .string("é and more")),
            ("\"" + String(repeating: "ab", count: 5_000) + "\"", .string(String(repeating: "ab", count: 5_000))),
            ("[]", .array([])),
            ("[1, [2, []]]", .array([.number("1"), .array([.number("2"), .array([])])])),
            ("{}", .object([:])),
            ("\t{\"type\" : \"offer\", \"n\":[null]}\r\n", .object(["type": .string("offer"), "n": .array([.null])])),
        ]
        for (text, expected) in table {
            XCTAssertEqual(try parse(text), expected, text)
        }
    }

    func testRejectsTable() {
        let table: [(String, JSONError)] = [
            ("", .unexpectedEnd),
            ("   ", .unexpectedEnd),
            ("nul", .unexpectedEnd),
            ("nulL", .unexpectedByte(offset: 0)),
            ("True", .unexpectedByte(offset: 0)),
            ("01", .invalidNumber(offset: 0)),
            ("-", .invalidNumber(offset: 0)),
            ("1.", .invalidNumber(offset: 0)),
            (".5", .unexpectedByte(offset: 0)),
            ("1e", .invalidNumber(offset: 0)),
            ("+1", .unexpectedByte(offset: 0)),
            ("\"abc", .unexpectedEnd),
            (#""\x""#, .invalidEscape(offset: 1)),
            (#""\u12G4""#, .invalidEscape(offset: 1)),
            (#""\ud800""#, .invalidUnicode(offset: 1)),
            (#""\ud800\u0041""#, .invalidUnicode(offset: 1)),
            (#""\udc00""#, .invalidUnicode(offset: 1)),
            ("\"a\nb\"", .controlCharacter(offset: 2)),
            (#""a\nb"# + "\t\"", .controlCharacter(offset: 5)),
            ("\"abc\\", .unexpectedEnd),
            ("[1,]", .unexpectedByte(offset: 3)),
            ("[1 2]", .unexpectedByte(offset: 3)),
            ("{\"a\" 1}", .unexpectedByte(offset: 5)),
            ("{a:1}", .unexpectedByte(offset: 1)),
            ("{\"a\":1,}", .unexpectedByte(offset: 7)),
            ("{\"a\":1,\"a\":2}", .duplicateKey(offset: 7)),
            ("{\"type\":\"x\"} garbage", .trailingData(offset: 13)),
            ("{}{}", .trailingData(offset: 2)),
            ("[1]]", .trailingData(offset: 3)),
        ]
        for (text, expected) in table {
            XCTAssertThrowsError(try parse(text), text) { error in
                XCTAssertEqual(error as? JSONError, expected, text)
            }
        }
    }

    func testRejectsInvalidUTF8InStrings() {
        XCTAssertThrowsError(try JSONParser.parse([0x22, 0xC3, 0x28, 0x22])) { error in
            XCTAssertEqual(error as? JSONError, .invalidUnicode(offset: 0))
        }
        // The same bytes before an escape, and after one.
        for bytes: [UInt8] in [[0x22, 0xC3, 0x28, 0x5C, 0x6E, 0x22], [0x22, 0x5C, 0x6E, 0xC3, 0x28, 0x22]] {
            XCTAssertThrowsError(try JSONParser.parse(bytes)) { error in
                XCTAssertEqual(error as? JSONError, .invalidUnicode(offset: 0))
            }
        }
        // A multi-byte character cut by the escape is invalid too.
        XCTAssertThrowsError(try JSONParser.parse([0x22, 0xC3, 0x5C, 0x6E, 0x22])) { error in
            XCTAssertEqual(error as? JSONError, .invalidUnicode(offset: 0))
        }
    }

    /// ASCII text is taken as it stands and other text is validated: both come out as
    /// they went in, whichever way the parser read them.
    func testTextWithAndWithoutNonASCIIBytesReadsBackExactly() throws {
        let texts = ["", "txid", String(repeating: "0123456789abcdef", count: 64), "tab\u{7F}del",
                     "caf\u{E9}", "\u{1F4B8} sent", "mixed \u{E9}\u{E9} and ascii " + String(repeating: "x", count: 100)]
        for text in texts {
            let encoded = JSONValue.array([.string(text)]).canonicalBytes
            XCTAssertEqual(try JSONParser.parse(encoded), .array([.string(text)]), text)
        }
        // A byte of 0x80 or above alone is not UTF-8, wherever it stands in the text.
        for bytes: [UInt8] in [[0x22, 0x80, 0x22], [0x22, 0x61, 0x62, 0xFF, 0x22], [0x22, 0x61, 0xE2, 0x82, 0x22]] {
            XCTAssertThrowsError(try JSONParser.parse(bytes)) { error in
                XCTAssertEqual(error as? JSONError, .invalidUnicode(offset: 0))
            }
        }
    }

    func testNestingLimitIsExact() throws {
        let ok = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        XCTAssertNoThrow(try parse(ok))
        let deep = String(repeating: "[", count: 33) + String(repeating: "]", count: 33)
        XCTAssertThrowsError(try parse(deep)) { XCTAssertEqual($0 as? JSONError, .tooDeep(limit: 32)) }
        // A deep object bomb fails fast on depth, without recursing through all of it.
        let bomb = String(repeating: "{\"a\":", count: 50_000)
        XCTAssertThrowsError(try JSONParser.parse(Array(bomb.utf8), limits: JSONParser.Limits(maxLength: 1 << 20)))
    }

    func testSizeLimit() {
        let big = "\"" + String(repeating: "x", count: 100) + "\""
        XCTAssertThrowsError(try JSONParser.parse(Array(big.utf8), limits: JSONParser.Limits(maxLength: 50))) {
            XCTAssertEqual($0 as? JSONError, .tooLarge(size: 102, limit: 50))
        }
    }

    func testEnvelopeReadsTypeAndRequestID() throws {
        let envelope = try MessageEnvelope.parse(Array(#"{"type":"QuoteRequest","request_id":"r1","amount_sat":5}"#.utf8))
        XCTAssertEqual(envelope, MessageEnvelope(type: "QuoteRequest", requestID: "r1"))
        let push = try MessageEnvelope.parse(Array(#"{"type":"SwapStatusUpdate"}"#.utf8))
        XCTAssertNil(push.requestID)
    }

    func testEnvelopeRejectsNonMessages() {
        let table = [#"[1]"#, #"{}"#, #"{"type":5}"#, #"{"type":""}"#, #"{"type":"x","request_id":7}"#,
                     #"{"type":"x","request_id":""}"#,
                     #"{"type":"x","request_id":""# + String(repeating: "a", count: 129) + #""}"#]
        for text in table {
            XCTAssertThrowsError(try MessageEnvelope.parse(Array(text.utf8)), text) { error in
                guard case .invalidEnvelope = error as? ChannelError else { return XCTFail("\(text): \(error)") }
            }
        }
        XCTAssertThrowsError(try MessageEnvelope.parse(Array("{".utf8))) {
            XCTAssertEqual($0 as? ChannelError, .invalidJSON(.unexpectedEnd))
        }
    }

    func testFuzzEntryTakesArbitraryInput() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("{}[]\",:\\u0123456789abcdefnultrse-+.eE \t\n".utf8) + [0x00, 0x80, 0xC3, 0xFF]
        for _ in 0..<3000 {
            let count = Int.random(in: 0..<120, using: &generator)
            ChannelFuzzTargets.json((0..<count).map { _ in alphabet.randomElement(using: &generator)! })
        }
    }
}
