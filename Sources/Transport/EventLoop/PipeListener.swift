#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLibUV

/// A listening unix-domain socket on an event loop (`uv_pipe_t`), the local twin of
/// `PipeListener`: inbound connections are handed out by `accept()`, at most
/// `maxConnections` open at once.
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
    public nonisolated let maxConnections: Int

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        loop.asUnownedSerialExecutor()
    }

    private enum Lifecycle {
        case open
        case closing
        case closed
    }

    private let confinedHandle: LoopConfined<UnsafeMutablePointer<uv_pipe_t>>
    private var handle: UnsafeMutablePointer<uv_pipe_t> { confinedHandle.value }
    private let readBufferLimit: Int
    private var ready: [PipeConnection] = []
    private var acceptWaiter: (token: Int, continuation: CheckedContinuation<PipeConnection?, any Error>)?
    private var nextAcceptToken = 0
    private var lifecycle = Lifecycle.open
    private var closeWaiters: [CheckedContinuation<Void, Never>] = []

    /// Accepted connections not yet closed, handed out or not.
    public private(set) var activeConnections = 0
    /// Connections closed on arrival because `maxConnections` were open.
    public private(set) var refusedConnections = 0
    /// The last error libuv reported for an incoming connection (e.g. EMFILE); the
    /// listener keeps listening.
    public private(set) var lastAcceptError: LibUVError?

    private init(
        handle: LoopConfined<UnsafeMutablePointer<uv_pipe_t>>, loop: EventLoop, path: String,
        maxConnections: Int, readBufferLimit: Int
    ) {
        self.confinedHandle = handle
        self.loop = loop
        self.path = path
        self.maxConnections = maxConnections
        self.readBufferLimit = readBufferLimit
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
        let pipe = UVHandle.allocate(uv_pipe_t.self)
        do {
            try uvCheck(uv_pipe_init(loop.uvLoop, pipe, 0), "uv_pipe_init")
        } catch {
            UVHandle.free(pipe)
            throw error
        }
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
        let listener = PipeListener(
            handle: LoopConfined(pipe), loop: loop, path: path, maxConnections: maxConnections,
            readBufferLimit: readBufferLimit)
        do {
            try loop.register(listener)
        } catch {
            UVHandle.closeAndFree(pipe)
            throw error
        }
        pipe.pointee.data = Unmanaged.passRetained(listener).toOpaque()
        let rc = uv_listen(PipeConnection.stream(pipe), backlog) { server, status in
            Unmanaged<PipeListener>.fromOpaque(server!.pointee.data).takeUnretainedValue()
                .assumeIsolated { $0.incoming(status: status) }
        }
        do {
            try uvCheck(rc, "uv_listen")
        } catch {
            listener.assumeIsolated { $0.beginClose() }
            throw error
        }
        return listener
    }

    /// The next inbound connection; nil once the listener is closed. Cancellable.
    public func accept() async throws -> PipeConnection? {
        if !ready.isEmpty { return ready.removeFirst() }
        guard case .open = lifecycle else { return nil }
        precondition(acceptWaiter == nil, "PipeListener supports one accept at a time")
        let token = nextAcceptToken
        nextAcceptToken += 1
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if Task.isCancelled { return continuation.resume(throwing: CancellationError()) }
                acceptWaiter = (token, continuation)
            }
        } onCancel: {
            loop.execute { self.assumeIsolated { $0.cancelAccept(token: token) } }
        }
    }

    private func cancelAccept(token: Int) {
        guard let waiter = acceptWaiter, waiter.token == token else { return }
        acceptWaiter = nil
        waiter.continuation.resume(throwing: CancellationError())
    }

    private func incoming(status: Int32) {
        do {
            try uvCheck(status, "uv_listen")
        } catch {
            lastAcceptError = error
            return
        }
        let client = UVHandle.allocate(uv_pipe_t.self)
        do {
            try uvCheck(uv_pipe_init(loop.uvLoop, client, 0), "uv_pipe_init")
        } catch {
            UVHandle.free(client)
            lastAcceptError = error
            return
        }
        do {
            try uvCheck(uv_accept(PipeConnection.stream(handle), PipeConnection.stream(client)), "uv_accept")
        } catch {
            UVHandle.closeAndFree(client)
            lastAcceptError = error
            return
        }
        guard case .open = lifecycle, activeConnections < maxConnections else {
            refusedConnections += 1
            UVHandle.closeAndFree(client)
            return
        }
        let connection: PipeConnection
        do {
            connection = try PipeConnection.adopt(
                client, path: path, loop: loop, readBufferLimit: readBufferLimit,
                onClosed: { self.assumeIsolated { $0.activeConnections -= 1 } })
        } catch {
            return  // shutting down; adopt closed the handle
        }
        activeConnections += 1
        if let waiter = acceptWaiter {
            acceptWaiter = nil
            waiter.continuation.resume(returning: connection)
        } else {
            ready.append(connection)
        }
    }

    /// Stops listening. A pending `accept()` returns nil; connections accepted but not
    /// handed out are closed; connections already handed out stay open.
    public func close() async {
        switch lifecycle {
        case .closed:
            return
        case .open:
            beginClose()
        case .closing:
            break
        }
        await withCheckedContinuation { closeWaiters.append($0) }
    }

    func beginClose() {
        guard case .open = lifecycle else { return }
        lifecycle = .closing
        if let waiter = acceptWaiter {
            acceptWaiter = nil
            waiter.continuation.resume(returning: nil)
        }
        for connection in ready { connection.assumeIsolated { $0.beginClose() } }
        ready = []
        uv_close(UVHandle.base(handle)) { handle in
            let listener = Unmanaged<PipeListener>.fromOpaque(handle!.pointee.data).takeRetainedValue()
            UVHandle.free(handle!)
            listener.assumeIsolated { $0.didClose() }
        }
    }

    private func didClose() {
        lifecycle = .closed
        let waiters = closeWaiters
        closeWaiters = []
        for waiter in waiters { waiter.resume() }
        loop.unregister(self)
    }
}

extension PipeListener: LoopResource {
    nonisolated func closeForShutdown() {
        assumeIsolated { $0.beginClose() }
    }
}
