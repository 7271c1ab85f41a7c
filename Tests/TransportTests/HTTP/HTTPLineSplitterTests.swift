import XCTest
@testable import Transport

final class HTTPLineSplitterTests: XCTestCase {
    func testLinesAcrossEveryPieceBoundary() throws {
        let body = "{\"a\":1}\n{\"b\":2}\r\n\n{\"c\":3}".bytes
        for cut in 0...body.count {
            var splitter = HTTPLineSplitter(maxLineBytes: 100)
            var lines = try splitter.append(Array(body[..<cut]))
            lines += try splitter.append(Array(body[cut...]))
            if let last = splitter.finish() { lines.append(last) }
            XCTAssertEqual(lines, ["{\"a\":1}", "{\"b\":2}", "{\"c\":3}"].map(\.bytes), "cut \(cut)")
        }
    }

    func testLongLineIsRefused() {
        var splitter = HTTPLineSplitter(maxLineBytes: 4)
        XCTAssertEqual(try splitter.append("abcd\n".bytes), ["abcd".bytes])
        XCTAssertThrowsError(try splitter.append("abc".bytes + "de".bytes)) {
            XCTAssertEqual($0 as? HTTPError, .lineTooLong(limit: 4))
        }
    }
}
