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
    /// Connections not yet handed out and the task waiting for one, shared with that task
    /// on its own thread (see `AcceptQueue` for why).
    private nonisolated let queue: AcceptQueue
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
        queue = AcceptQueue(name: name)
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
    /// closed. Cancellable. Nonisolated: a connection already waiting is taken on the
    /// caller's thread, and a caller that must wait is resumed by the loop's accept callback.
    nonisolated func accept<Connection: UVStreamConnection>(_ type: Connection.Type) async throws -> Connection? {
        guard let connection = try await nextConnection() else { return nil }
        // `adopt` is the only source of connections and makes only this type.
        return (connection as! Connection)
    }

    private nonisolated func nextConnection() async throws -> (any UVStreamConnection)? {
        let token: Int
        switch queue.take() {
        case .connection(let connection): return connection
        case .closed: return nil
        case .empty(let parkToken): token = parkToken
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // A cancellation that came first has queued nothing that would find us.
                if Task.isCancelled { return continuation.resume(throwing: CancellationError()) }
                switch queue.park(token: token, continuation) {
                case .connection(let connection): continuation.resume(returning: connection)
                case .closed: continuation.resume(returning: nil)
                case .empty, nil:
                    // A cancellation between the check above and parking found no waiter.
                    if Task.isCancelled { queue.cancel(token: token)?.resume(throwing: CancellationError()) }
                }
            }
        } onCancel: {
            queue.cancel(token: token)?.resume(throwing: CancellationError())
        }
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
        let (waiter, queued) = queue.deliver(connection)
        if let waiter {
            waiter.resume(returning: connection)
        } else if !queued {
            connection.core.assumeIsolated { $0.beginClose() }
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
        let (waiter, unclaimed) = queue.close()
        waiter?.resume(returning: nil)
        for connection in unclaimed { connection.core.assumeIsolated { $0.beginClose() } }
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
