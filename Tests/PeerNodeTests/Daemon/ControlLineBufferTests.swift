@testable import PeerNode
import XCTest

final class ControlLineBufferTests: XCTestCase {
    func testLinesComeWholeWhateverTheChunks() throws {
        var lines = ControlLineBuffer(maxLineBytes: 64)
        lines.append(Array("ab".utf8))
        XCTAssertNil(try lines.next(), "half a line is not a line")
        lines.append(Array("c\r\nde\n\nf".utf8))
        XCTAssertEqual(try lines.next(), Array("abc".utf8), "the \\r goes with the \\n")
        XCTAssertEqual(try lines.next(), Array("de".utf8))
        XCTAssertEqual(try lines.next(), [])
        XCTAssertNil(try lines.next())
        XCTAssertFalse(lines.isFinished)
        lines.end()
        XCTAssertEqual(try lines.next(), Array("f".utf8), "bytes after the last newline are a final line")
        XCTAssertNil(try lines.next())
        XCTAssertTrue(lines.isFinished)
    }

    func testALineLongerThanTheLimitIsRefused() {
        var lines = ControlLineBuffer(maxLineBytes: 8)
        lines.append(Array("12345678".utf8))
        XCTAssertNoThrow(try lines.next())
        lines.append(Array("9".utf8))
        XCTAssertThrowsError(try lines.next()) { error in
            XCTAssertEqual(error as? ControlLineBuffer.Failure, .lineTooLong(limit: 8))
        }
    }
}
