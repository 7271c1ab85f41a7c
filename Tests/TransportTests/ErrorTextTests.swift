@testable import Transport
import XCTest

/// Errors as users read them (issue 14): never a Swift type name such as
/// "CancellationError()", never a libuv function name.
final class ErrorTextTests: XCTestCase {
    private struct Opaque: Error {
        let field = 3
    }

    func testCancellationIsSaidInWords() {
        XCTAssertEqual(ErrorText.describe(CancellationError()), "cancelled (the node is stopping or the request ended)")
    }

    func testAnErrorWithADescriptionKeepsIt() {
        XCTAssertEqual(ErrorText.describe(LibUVError(call: "uv_tcp_getsockname", code: -9)),
                       "reading the connection's local address failed: bad file descriptor (EBADF)")
    }

    func testAnErrorWithoutADescriptionShowsNoTypeName() {
        let text = ErrorText.describe(Opaque())
        XCTAssertFalse(text.contains("Opaque"), text)
        XCTAssertEqual(text, "an unexpected failure")
    }
}
