import CLibUV

/// A libuv call that failed: the call's name and libuv's error code. Every libuv return
/// code in this module goes through `uvCheck`, so each failure names the call that made it.
public struct LibUVError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The libuv function (or the callback's request, e.g. `uv_tcp_connect`) that failed.
    public let call: String
    /// libuv's negative error code (`UV_ECONNREFUSED`, ...).
    public let code: Int32

    public init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    /// libuv's symbolic name of the code, e.g. `ECONNREFUSED`.
    public var name: String { String(cString: uv_err_name(code)) }

    public var description: String {
        "\(call) failed: \(String(cString: uv_strerror(code))) (\(name))"
    }

    /// The peer refused the connection (nothing listens on that port).
    public var isConnectionRefused: Bool { code == UV_ECONNREFUSED.rawValue }
    /// The peer reset the connection.
    public var isConnectionReset: Bool { code == UV_ECONNRESET.rawValue }
}

/// The one place libuv return codes become errors: negative means failure. Returns the
/// code unchanged otherwise, since some calls (uv_try_write) return a count.
@discardableResult
func uvCheck(_ rc: Int32, _ call: StaticString) throws(LibUVError) -> Int32 {
    if rc < 0 { throw LibUVError(call: "\(call)", code: rc) }
    return rc
}

/// The same check as a value, for callback statuses that resume a continuation.
func uvResult(_ status: Int32, _ call: StaticString) -> Result<Void, LibUVError> {
    Result { () throws(LibUVError) in _ = try uvCheck(status, call) }
}

/// For calls that cannot fail in a correct program (uv_async_send on a live handle,
/// uv_timer_init): a failure is a bug in this module, so it stops the process with the
/// call's name rather than being handed to callers who could do nothing about it.
func uvMust(_ rc: Int32, _ call: StaticString) {
    do { try uvCheck(rc, call) } catch { fatalError("\(error)") }
}
