import Bitcoin
import XCTest

/// `CastToBool` as the interpreter reads OP_IF selectors.
final class ScriptBoolTests: XCTestCase {
    func testFalseValues() {
        for item: [UInt8] in [[], [0x00], [0x00, 0x00], [0x80], [0x00, 0x80]] {
            XCTAssertFalse(ScriptBool.isTrue(item), "\(item)")
        }
    }

    func testTrueValues() {
        for item: [UInt8] in [[0x01], [0x02], [0x80, 0x00], [0x00, 0x01], [0x81], [0xff]] {
            XCTAssertTrue(ScriptBool.isTrue(item), "\(item)")
        }
    }
}
