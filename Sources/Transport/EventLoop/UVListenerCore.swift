import CLibUV

/// A public connection type built on `UVStreamCore` (`TCPConnection`, `PipeConnection`),
/// as handed out by `UVListenerCore`.
protocol UVStreamConnection: Actor {
    nonisolated var core: UVStreamCore { get }
}

/// The machinery every listening libuv stream (TCP and unix pipes) shares, wrapped by
/// `TCPListener` and `PipeListener`, which add only how they bind. Inbound connections are
/// accepted as they arrive and handed out by `accept()`; past `maxConnections` open at once
/// (handed out or waiting), extra connections are closed immediately, so one flood cannot
/// exhaust the node while the accepted connections keep working.
///
/// The handle's `data` holds a retained reference to the core until the close callback,
/// which frees the handle and drops it.
actor UVListenerCore {
    /// Allocates and initialises an unconnected client handle for `uv_accept`; on failure
    /// nothing is left allocated.
    typealias MakeHandle = @Sendable (EventLoop) throws(LibUVError) -> UnsafeMutablePointer<uv_stream_t>
    /// Wraps an accepted handle in the public connection type; `onClosed` runs once it closed.
    typealias Adopt = @Sendable (UnsafeMutablePointer<uv_stream_t>, _ onClosed: @escaping @Sendable () -> Void)
        throws(EventLoopError) -> any UVStreamConnection

    nonisolated let loop: EventLoop
    nonisolated let maxConnections: Int

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        loop.asUnownedSerialExecutor()
    }

    private let confinedHandle: LoopConfined<UnsafeMutablePointer<uv_stream_t>>
    private var handle: UnsafeMutablePointer<uv_stream_t> { confinedHandle.value }
    /// The wrapper's type name, for misuse messages.
    private let name: String
    private let makeHandle: MakeHandle
    private let adopt: Adopt
    private var ready: [any UVStreamConnection] = []
    private var acceptWaiter: (token: Int, continuation: CheckedContinuation<(any UVStreamConnection)?, any Error>)?
    private var nextAcceptToken = 0
    private var lifecycle = HandleLifecycle()

    /// Accepted connections not yet closed, handed out or not.
    private(set) var activeConnections = 0
    /// Connections closed on arrival because `maxConnections` were open.
    private(set) var refusedConnections = 0
    /// The last error libuv reported for an incoming connection (e.g. EMFILE); the
    /// listener keeps listening.
    private(set) var lastAcceptError: LibUVError?

    private init(
        handle: LoopConfined<UnsafeMutablePointer<uv_stream_t>>, loop: EventLoop, name: String,
        maxConnections: Int, makeHandle: @escaping MakeHandle, adopt: @escaping Adopt
    ) {
        self.confinedHandle = handle
        self.loop = loop
        self.name = name
        self.maxConnections = maxConnections
        self.makeHandle = makeHandle
        self.adopt = adopt
    }

    /// Listens on a bound handle (whose `data` is unset). Loop thread only. On failure the
    /// handle is closed and freed.
    static func listen(
        _ server: UnsafeMutablePointer<uv_stream_t>, backlog: Int32, maxConnections: Int, name: String,
        loop: EventLoop, makeHandle: @escaping MakeHandle, adopt: @escaping Adopt
    ) throws -> UVListenerCore {
        let listener = UVListenerCore(
            handle: LoopConfined(server), loop: loop, name: name, maxConnections: maxConnections,
            makeHandle: makeHandle, adopt: adopt)
        do {
            try loop.register(listener)
        } catch {
            UVHandle.closeAndFree(server)
            throw error
        }
        server.pointee.data = Unmanaged.passRetained(listener).toOpaque()
        // Linux reports a TCP port already in use here rather than at bind.
        let rc = uv_listen(server, backlog) { server, status in
            Unmanaged<UVListenerCore>.fromOpaque(server!.pointee.data).takeUnretainedValue()
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

    /// The next inbound connection, of the type `adopt` makes; nil once the listener is
    /// closed. Cancellable.
    func accept<Connection: UVStreamConnection>(_ type: Connection.Type) async throws -> Connection? {
        guard let connection = try await nextConnection() else { return nil }
        // `adopt` is the only source of connections and makes only this type.
        return (connection as! Connection)
    }

    private func nextConnection() async throws -> (any UVStreamConnection)? {
        if !ready.isEmpty { return ready.removeFirst() }
        guard lifecycle.isOpen else { return nil }
        precondition(acceptWaiter == nil, "\(name) supports one accept at a time")
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
        let client: UnsafeMutablePointer<uv_stream_t>
        do {
            client = try makeHandle(loop)
        } catch {
            lastAcceptError = error
            return
        }
        do {
            try uvCheck(uv_accept(handle, client), "uv_accept")
        } catch {
            UVHandle.closeAndFree(client)
            lastAcceptError = error
            return
        }
        guard lifecycle.isOpen, activeConnections < maxConnections else {
            refusedConnections += 1
            UVHandle.closeAndFree(client)
            return
        }
        let connection: any UVStreamConnection
        do {
            connection = try adopt(client, { self.assumeIsolated { $0.activeConnections -= 1 } })
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
    func close() async {
        if lifecycle.isClosed { return }
        beginClose()  // does nothing while already closing
        await withCheckedContinuation { lifecycle.waitForClose($0) }
    }

    func beginClose() {
        guard lifecycle.beginClosing() else { return }
        if let waiter = acceptWaiter {
            acceptWaiter = nil
            waiter.continuation.resume(returning: nil)
        }
        for connection in ready { connection.core.assumeIsolated { $0.beginClose() } }
        ready = []
        uv_close(UVHandle.base(handle)) { handle in
            let listener = Unmanaged<UVListenerCore>.fromOpaque(handle!.pointee.data).takeRetainedValue()
            UVHandle.free(handle!)
            listener.assumeIsolated { $0.didClose() }
        }
    }

    private func didClose() {
        lifecycle.didClose()
        loop.unregister(self)
    }
}

extension UVListenerCore: LoopResource {
    nonisolated func closeForShutdown() {
        assumeIsolated { $0.beginClose() }
    }
}
