import XCTest
@testable import Bitcoin

final class ScriptTests: XCTestCase {
    func testEveryOpcodeByteRoundTrips() throws {
        for byte in UInt8(0x4f)...UInt8(0xff) {
            let script = Script(bytes: [byte])
            let ops = try script.opcodes()
            XCTAssertEqual(ops.count, 1)
            XCTAssertEqual(ops[0].byte, byte)
            XCTAssertEqual(Script(ops).bytes, [byte])
        }
    }

    func testPushesChooseTheShortestEncoding() {
        XCTAssertEqual(Script([.pushMinimal([])]).bytes, [0x00])
        XCTAssertEqual(Script([.pushMinimal([5])]).bytes, [0x55])
        XCTAssertEqual(Script([.pushMinimal([0x81])]).bytes, [0x4f])
        XCTAssertEqual(Script([.pushData([5])]).bytes, [0x01, 0x05])
        XCTAssertEqual(Script([.pushData([UInt8](repeating: 1, count: 75))]).bytes.prefix(1), [75])
        XCTAssertEqual(Script([.pushData([UInt8](repeating: 1, count: 76))]).bytes.prefix(2), [0x4c, 76])
        XCTAssertEqual(Script([.pushData([UInt8](repeating: 1, count: 256))]).bytes.prefix(3), [0x4d, 0x00, 0x01])
    }

    func testTruncatedPushIsAnError() {
        XCTAssertThrowsError(try Script(bytes: [0x05, 0x01]).opcodes())
        XCTAssertThrowsError(try Script(bytes: [0x4c]).opcodes())
        XCTAssertThrowsError(try Script(bytes: [0x4d, 0xff]).opcodes())
        XCTAssertEqual(Script(bytes: [0x76, 0x05, 0x01]).description, "OP_DUP [error]")
    }

    func testScriptNumbers() throws {
        let cases: [(Int64, [UInt8])] = [
            (0, []), (1, [0x01]), (-1, [0x81]), (127, [0x7f]), (128, [0x80, 0x00]),
            (-128, [0x80, 0x80]), (255, [0xff, 0x00]), (256, [0x00, 0x01]), (500_000, [0x20, 0xa1, 0x07]),
        ]
        for (value, encoding) in cases {
            XCTAssertEqual(ScriptNumber(value).bytes, encoding, "\(value)")
            XCTAssertEqual(try ScriptNumber(bytes: encoding).value, value)
        }
        XCTAssertThrowsError(try ScriptNumber(bytes: [0x01, 0x00]), "superfluous zero byte")
        XCTAssertThrowsError(try ScriptNumber(bytes: [0x00]), "negative zero / zero byte")
        XCTAssertThrowsError(try ScriptNumber(bytes: [1, 2, 3, 4, 5]), "five bytes over the 4-byte limit")
        XCTAssertEqual(try ScriptNumber(bytes: [1, 2, 3, 4, 5], maxSize: 5).value, 0x05_0403_0201)
    }

    func testNamesParseWithAndWithoutPrefix() {
        XCTAssertEqual(Opcode.operationsByName["CHECKSIG"], .checkSig)
        XCTAssertEqual(Opcode.operationsByName["OP_CHECKSIG"], .checkSig)
        XCTAssertEqual(Opcode.operationsByName["NOP2"], .checkLockTimeVerify)
        XCTAssertEqual(Opcode.operationsByName["OP_16"], .number(16))
        XCTAssertEqual(Opcode.checkSigAdd.name, "OP_CHECKSIGADD")
    }
}
