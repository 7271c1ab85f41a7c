import CLibUV

/// A listening TCP socket on an event loop. Inbound connections are accepted as they
/// arrive and handed out by `accept()`; past `maxConnections` open at once (handed out
/// or waiting), extra connections are closed immediately, so one flood cannot exhaust
/// the node while the accepted connections keep working. Accepting, the cap and closing
/// are the shared listener machinery of `UVListenerCore`; this type binds.
public actor TCPListener {
    public nonisolated let loop: EventLoop
    /// The address actually bound (with the real port when port 0 was asked for).
    public nonisolated let address: SocketAddress
    public nonisolated var maxConnections: Int { core.maxConnections }
    private nonisolated let core: UVListenerCore

    /// The bound port.
    public nonisolated var port: Int { address.port }

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

    private init(core: UVListenerCore, loop: EventLoop, address: SocketAddress) {
        self.core = core
        self.loop = loop
        self.address = address
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
        let stream = try TCPConnection.makeHandle(on: loop)
        let tcp = UVHandle.concrete(stream, as: uv_tcp_t.self)
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
        let core = try UVListenerCore.listen(
            stream, backlog: backlog, maxConnections: maxConnections, name: "TCPListener", loop: loop,
            makeHandle: { loop throws(LibUVError) in try TCPConnection.makeHandle(on: loop) },
            adopt: { client, onClosed throws(EventLoopError) in
                try TCPConnection.adopt(
                    UVHandle.concrete(client, as: uv_tcp_t.self), loop: loop, readBufferLimit: readBufferLimit,
                    onClosed: onClosed)
            })
        return TCPListener(core: core, loop: loop, address: bound)
    }

    /// The next inbound connection; nil once the listener is closed. Cancellable.
    public nonisolated func accept() async throws -> TCPConnection? {
        try await core.accept(TCPConnection.self)
    }

    /// Stops listening. A pending `accept()` returns nil; connections accepted but not
    /// handed out are closed; connections already handed out stay open.
    public func close() async {
        await core.close()
    }
}
