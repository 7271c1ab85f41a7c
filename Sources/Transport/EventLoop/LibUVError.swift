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

    /// What failed in words a user reads ("connecting failed: connection refused
    /// (ECONNREFUSED)"): people read these in `peernode` errors and the log, so libuv's
    /// function name stays in `call` for programs and tests.
    public var description: String {
        "\(Self.purpose(of: call)) failed: \(String(cString: uv_strerror(code))) (\(name))"
    }

    /// The operation a libuv call performs, for messages.
    static func purpose(of call: String) -> String {
        switch call {
        case "uv_tcp_connect", "uv_pipe_connect": return "connecting"
        case "uv_tcp_bind", "uv_pipe_bind": return "binding the listening address"
        case "uv_listen": return "listening"
        case "uv_accept": return "accepting a connection"
        case "uv_getaddrinfo", "uv_ip_addr": return "resolving the host name"
        case "uv_tcp_getsockname": return "reading the connection's local address"
        case "uv_tcp_getpeername": return "reading the connection's remote address"
        case "uv_write", "uv_try_write": return "sending"
        case "uv_read_start", "uv_read_stop", "uv_read": return "receiving"
        case "uv_shutdown": return "closing the connection"
        case "uv_tcp_init", "uv_pipe_init": return "opening a socket"
        case "uv_timer_init", "uv_timer_start": return "starting a timer"
        case "uv_signal_init", "uv_signal_start": return "watching signals"
        case "uv_loop_init", "uv_async_send": return "running the event loop"
        case "chmod": return "setting the control socket's permissions"
        default: return "a network operation"
        }
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
