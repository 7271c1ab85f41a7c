import CLibUV

/// A listening TCP socket on an event loop. Inbound connections are accepted as they
/// arrive and handed out by `accept()`; past `maxConnections` open at once (handed out
/// or waiting), extra connections are closed immediately, so one flood cannot exhaust
/// the node while the accepted connections keep working.
public actor TCPListener {
    public nonisolated let loop: EventLoop
    /// The address actually bound (with the real port when port 0 was asked for).
    public nonisolated let address: SocketAddress
    public nonisolated let maxConnections: Int

    /// The bound port.
    public nonisolated var port: Int { address.port }

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        loop.asUnownedSerialExecutor()
    }

    private enum Lifecycle {
        case open
        case closing
        case closed
    }

    private let confinedHandle: LoopConfined<UnsafeMutablePointer<uv_tcp_t>>
    private var handle: UnsafeMutablePointer<uv_tcp_t> { confinedHandle.value }
    private let readBufferLimit: Int
    private var ready: [TCPConnection] = []
    private var acceptWaiter: (token: Int, continuation: CheckedContinuation<TCPConnection?, any Error>)?
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
        handle: LoopConfined<UnsafeMutablePointer<uv_tcp_t>>, loop: EventLoop, address: SocketAddress,
        maxConnections: Int, readBufferLimit: Int
    ) {
        self.confinedHandle = handle
        self.loop = loop
        self.address = address
        self.maxConnections = maxConnections
        self.readBufferLimit = readBufferLimit
    }

    /// Binds and listens. `port` 0 picks a free port (read it from `port`). `host` is a
    /// numeric IPv4/IPv6 address or a name resolved with uv_getaddrinfo (the first
    /// address is used).
    public static func bind(
        host: String = "127.0.0.1", port: Int = 0, backlog: Int32 = 511,
        maxConnections: Int = 256,
        readBufferLimit: Int = TCPConnection.defaultReadBufferLimit,
        loop: EventLoop
    ) async throws -> TCPListener {
        let address = try await AddressResolver.resolve(host: host, port: port, loop: loop)[0]
        return try await withCheckedThrowingContinuation { continuation in
            loop.submit(failing: continuation) {
                continuation.resume(with: Result {
                    try TCPListener.open(
                        address: address, backlog: backlog, maxConnections: maxConnections,
                        readBufferLimit: readBufferLimit, loop: loop)
                })
            }
        }
    }

    /// Loop thread only.
    private static func open(
        address: SocketAddress, backlog: Int32, maxConnections: Int, readBufferLimit: Int,
        loop: EventLoop
    ) throws -> TCPListener {
        if loop.isClosingDown { throw EventLoopError.shutDown }
        let tcp = UVHandle.allocate(uv_tcp_t.self)
        do {
            try uvCheck(uv_tcp_init(loop.uvLoop, tcp), "uv_tcp_init")
        } catch {
            UVHandle.free(tcp)
            throw error
        }
        let bound: SocketAddress
        do {
            _ = try address.withSockaddr { sockaddr throws(LibUVError) in
                try uvCheck(uv_tcp_bind(tcp, sockaddr, 0), "uv_tcp_bind")
            }
            bound = try SocketAddress.of(tcp, peer: false)
        } catch {
            UVHandle.closeAndFree(tcp)
            throw error
        }
        let listener = TCPListener(
            handle: LoopConfined(tcp), loop: loop, address: bound, maxConnections: maxConnections,
            readBufferLimit: readBufferLimit)
        do {
            try loop.register(listener)
        } catch {
            UVHandle.closeAndFree(tcp)
            throw error
        }
        tcp.pointee.data = Unmanaged.passRetained(listener).toOpaque()
        // Linux reports a port already in use here rather than at bind.
        let rc = uv_listen(UVHandle.stream(tcp), backlog) { server, status in
            Unmanaged<TCPListener>.fromOpaque(server!.pointee.data).takeUnretainedValue()
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
    public func accept() async throws -> TCPConnection? {
        if !ready.isEmpty { return ready.removeFirst() }
        guard case .open = lifecycle else { return nil }
        precondition(acceptWaiter == nil, "TCPListener supports one accept at a time")
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
        let client = UVHandle.allocate(uv_tcp_t.self)
        do {
            try uvCheck(uv_tcp_init(loop.uvLoop, client), "uv_tcp_init")
        } catch {
            UVHandle.free(client)
            lastAcceptError = error
            return
        }
        do {
            try uvCheck(uv_accept(UVHandle.stream(handle), UVHandle.stream(client)), "uv_accept")
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
        let connection: TCPConnection
        do {
            connection = try TCPConnection.adopt(
                client, loop: loop, readBufferLimit: readBufferLimit,
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
            let listener = Unmanaged<TCPListener>.fromOpaque(handle!.pointee.data).takeRetainedValue()
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

extension TCPListener: LoopResource {
    nonisolated func closeForShutdown() {
        assumeIsolated { $0.beginClose() }
    }
}
