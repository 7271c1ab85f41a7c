#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLibUV

/// A listening unix-domain socket on an event loop (`uv_pipe_t`), the local twin of
/// `TCPListener`: inbound connections are handed out by `accept()`, at most
/// `maxConnections` open at once (the shared listener machinery of `UVListenerCore`).
///
/// The socket file is created by `bind` with exactly `mode` (0600 by default: only the
/// owner may connect) before it listens, so no other user can connect in between; libuv
/// removes the file when the listener closes. `bind` fails with EADDRINUSE when a file is
/// already at the path: deciding whether that is a stale socket is the caller's call.
public actor PipeListener {
    /// `sun_path` holds 108 bytes with the terminating NUL.
    public static let maxPathBytes = 107

    public nonisolated let loop: EventLoop
    /// The socket file's path.
    public nonisolated let path: String
    public nonisolated var maxConnections: Int { core.maxConnections }
    private nonisolated let core: UVListenerCore

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        loop.asUnownedSerialExecutor()
    }

    /// Accepted connections not yet closed, handed out or not.
    public var activeConnections: Int {
        get async { await core.activeConnections }
    }
    /// Connections closed on arrival because `maxConnections` were open.
    public var refusedConnections: Int {
        get async { await core.refusedConnections }
    }
    /// The last error libuv reported for an incoming connection (e.g. EMFILE); the
    /// listener keeps listening.
    public var lastAcceptError: LibUVError? {
        get async { await core.lastAcceptError }
    }

    private init(core: UVListenerCore, loop: EventLoop, path: String) {
        self.core = core
        self.loop = loop
        self.path = path
    }

    /// Creates the socket file at `path` with `mode` and listens. Fails with `LibUVError`
    /// (EADDRINUSE: something is at the path; ENAMETOOLONG: over `maxPathBytes`; call
    /// `chmod` for a mode that cannot be set) or `EventLoopError.shutDown`.
    public static func bind(
        path: String, mode: UInt32 = 0o600, backlog: Int32 = 128, maxConnections: Int = 64,
        readBufferLimit: Int = PipeConnection.defaultReadBufferLimit,
        loop: EventLoop
    ) async throws -> PipeListener {
        try await withCheckedThrowingContinuation { continuation in
            loop.submit(failing: continuation) {
                continuation.resume(with: Result {
                    try PipeListener.open(
                        path: path, mode: mode, backlog: backlog, maxConnections: maxConnections,
                        readBufferLimit: readBufferLimit, loop: loop)
                })
            }
        }
    }

    /// Loop thread only.
    private static func open(
        path: String, mode: UInt32, backlog: Int32, maxConnections: Int, readBufferLimit: Int,
        loop: EventLoop
    ) throws -> PipeListener {
        if loop.isClosingDown { throw EventLoopError.shutDown }
        // libuv would silently cut a longer path to sun_path's size and bind elsewhere.
        guard path.utf8.count <= maxPathBytes else { throw LibUVError(call: "uv_pipe_bind", code: UV_ENAMETOOLONG.rawValue) }
        let stream = try PipeConnection.makeHandle(on: loop)
        let pipe = UVHandle.concrete(stream, as: uv_pipe_t.self)
        do {
            try uvCheck(uv_pipe_bind(pipe, path), "uv_pipe_bind")
        } catch {
            UVHandle.closeAndFree(pipe)
            throw error
        }
        // Nobody can connect before uv_listen, so setting the mode here leaves no window
        // in which the socket is open to others. Closing the handle removes the file.
        if chmod(path, mode_t(mode)) != 0 {
            let code = -errno
            UVHandle.closeAndFree(pipe)
            throw LibUVError(call: "chmod", code: code)
        }
        let core = try UVListenerCore.listen(
            stream, backlog: backlog, maxConnections: maxConnections, name: "PipeListener", loop: loop,
            makeHandle: { loop throws(LibUVError) in try PipeConnection.makeHandle(on: loop) },
            adopt: { client, onClosed throws(EventLoopError) in
                try PipeConnection.adopt(
                    UVHandle.concrete(client, as: uv_pipe_t.self), path: path, loop: loop,
                    readBufferLimit: readBufferLimit, onClosed: onClosed)
            })
        return PipeListener(core: core, loop: loop, path: path)
    }

    /// The next inbound connection; nil once the listener is closed. Cancellable.
    public nonisolated func accept() async throws -> PipeConnection? {
        try await core.accept(PipeConnection.self)
    }

    /// Stops listening. A pending `accept()` returns nil; connections accepted but not
    /// handed out are closed; connections already handed out stay open.
    public func close() async {
        await core.close()
    }
}
