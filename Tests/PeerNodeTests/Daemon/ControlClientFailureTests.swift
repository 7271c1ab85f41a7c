@testable import PeerNode
import Transport
import XCTest

/// Issue 22: a control socket this user may not open is not "the daemon is not running"
/// (the tests run as root, for whom no socket is forbidden, so the mapping is tested).
final class ControlClientFailureTests: XCTestCase {
    func testPermissionDeniedIsToldApartFromNoDaemon() {
        // libuv's codes are the negated errno values: EACCES 13, EPERM 1, ENOENT 2, ECONNREFUSED 111.
        let denied = ControlClient.connectFailure(LibUVError(call: "uv_pipe_connect", code: -13), socket: "/d/control.sock")
        XCTAssertEqual(denied, .permissionDenied(socket: "/d/control.sock"))
        XCTAssertTrue(denied.description.contains("run the command as the user that runs the daemon"), denied.description)
        XCTAssertEqual(ControlClient.connectFailure(LibUVError(call: "uv_pipe_connect", code: -1), socket: "s"),
                       .permissionDenied(socket: "s"))
        XCTAssertEqual(ControlClient.connectFailure(LibUVError(call: "uv_pipe_connect", code: -2), socket: "s"),
                       .daemonNotRunning(socket: "s", reason: "no socket file"))
        guard case .daemonNotRunning = ControlClient.connectFailure(LibUVError(call: "uv_pipe_connect", code: -111), socket: "s")
        else { return XCTFail("a refused connection means no daemon") }
    }
}
