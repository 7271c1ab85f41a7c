import XCTest
@testable import Bitcoin

/// The test-assembly parser against the rules of Core's ParseScript, including the words
/// Core rejects (a lenient parser would quietly test different scripts).
final class CoreScriptAssemblyTests: XCTestCase {
    private func parse(_ text: String) throws -> [UInt8] { try CoreScriptAssembly.parse(text).bytes }

    func testNumbersArePushedAsCScriptDoes() throws {
        XCTAssertEqual(try parse("0 -1 1 16"), [0x00, 0x4f, 0x51, 0x60])
        XCTAssertEqual(try parse("17 -2 128 -0 007"), [0x01, 0x11, 0x01, 0x82, 0x02, 0x80, 0x00, 0x00, 0x57])
        XCTAssertEqual(try parse("4294967295"), [0x05, 0xff, 0xff, 0xff, 0xff, 0x00])
        XCTAssertEqual(try parse("-4294967295"), [0x05, 0xff, 0xff, 0xff, 0xff, 0x80])
        XCTAssertThrowsError(try parse("4294967296"))
        XCTAssertThrowsError(try parse("-4294967296"))
        XCTAssertThrowsError(try parse("99999999999999999999"))
    }

    func testHexIsInsertedRawAndQuotedTextIsPushed() throws {
        XCTAssertEqual(try parse("0x4c 0x01 0x07"), [0x4c, 0x01, 0x07])
        XCTAssertEqual(try parse("0xABcd"), [0xab, 0xcd])
        XCTAssertThrowsError(try parse("0x"))
        XCTAssertThrowsError(try parse("0xabc"))
        XCTAssertEqual(try parse("'Az'"), [0x02, 0x41, 0x7a])
        XCTAssertEqual(try parse("''"), [0x00])
        XCTAssertEqual(try parse("'\u{01}'"), [0x01, 0x01], "one byte 1 is pushed as data, not OP_1")
        XCTAssertEqual(try parse("'\(String(repeating: "a", count: 76))'").prefix(2), [0x4c, 76])
    }

    func testOpcodeNamesFollowCoresTable() throws {
        XCTAssertEqual(try parse("ADD OP_ADD NOP OP_NOP10 RESERVED CHECKLOCKTIMEVERIFY CHECKSEQUENCEVERIFY"),
                       [0x93, 0x93, 0x61, 0xb9, 0x50, 0xb1, 0xb2])
        // Not in Core's ParseOpCode table: aliases, pushes, OP_N and opcodes past OP_NOP10.
        for word in ["NOP2", "NOP3", "OP_TRUE", "OP_FALSE", "OP_1", "1NEGATE", "OP_1NEGATE", "PUSHDATA1",
                     "OP_CHECKSIGADD", "INVALIDOPCODE", "add", "-", "'", "#SCRIPT#"] {
            XCTAssertThrowsError(try parse(word), word)
        }
    }

    func testOnlySpaceTabAndNewlineSeparate() throws {
        XCTAssertEqual(try parse(" \t1\n\n2  "), [0x51, 0x52])
        XCTAssertThrowsError(try parse("1\r\n2"), "Core does not split on carriage return")
        XCTAssertEqual(try parse(""), [])
    }
}
