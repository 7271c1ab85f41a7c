/// Serves peers over TCP: a `TCPListener` on the loop whose every accepted connection goes
/// to a `PeerServer`, which runs the handshake, enforces the inbound cap and the limits,
/// and logs whatever ends a connection.
///
///     let server = PeerServer(identity: me, sleeper: loop.sleeper, handlers: handlers)
///     let listener = try await PeerListener.start(server: server, port: 9735, loop: loop)
///     ...
///     await listener.close()       // stops listening, then closes every peer
///
/// The accept loop is a task on the pool (its closure does not capture the actor): it takes
/// connections the loop has accepted without crossing to it (`AcceptQueue`), each with
/// what the dialler had sent by then already read, and hands them to the server without
/// waiting for it (`PeerServer.handOver`). Handing each connection over on the loop thread
/// instead cost more wake-ups, not fewer (docs/PERFORMANCE.md, "Closes and accepts with
/// fewer crossings, and whole frames per read").
public actor PeerListener {
    public nonisolated let server: PeerServer
    public nonisolated let loop: EventLoop
    /// The address bound (with the real port when port 0 was asked for).
    public nonisolated let address: SocketAddress
    /// The bound port.
    public nonisolated var port: Int { address.port }

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        loop.asUnownedSerialExecutor()
    }

    private let listener: TCPListener
    private var acceptLoop: Task<Void, Never>?
    private var closed = false

    private init(server: PeerServer, listener: TCPListener) {
        self.server = server
        self.listener = listener
        loop = listener.loop
        address = listener.address
    }

    /// Binds `host:port` (port 0: any free port) and starts accepting.
    ///
    /// The TCP listener's own cap sits above the server's budgets (peers plus handshakes),
    /// so that it is the server that refuses (and logs) an extra peer; the TCP cap only bounds how many
    /// sockets a flood can hold while the server turns them away.
    public static func start(server: PeerServer, host: String = "127.0.0.1", port: Int = 0, backlog: Int32 = 511,
                             readBufferLimit: Int = TCPConnection.defaultReadBufferLimit,
                             loop: EventLoop) async throws -> PeerListener {
        let inbound = server.limits.maxInboundConnections + server.limits.maxHandshakes
        let listener = try await TCPListener.bind(
            host: host, port: port, backlog: backlog, maxConnections: inbound + max(16, inbound / 4),
            readBufferLimit: readBufferLimit, loop: loop)
        let peerListener = PeerListener(server: server, listener: listener)
        await peerListener.startAccepting()
        return peerListener
    }

    private func startAccepting() {
        let listener = self.listener
        let server = self.server
        acceptLoop = Task {
            // accept() returns nil once the listener is closed; it throws only when this
            // task is cancelled, which only `close` does.
            while let connection = try? await listener.accept() {
                server.handOver(connection, from: connection.remoteSocketAddress.map(PeerHost.init))
            }
        }
    }

    /// Stops listening, then shuts the server down: every peer connection it serves is
    /// closed and its task finished before this returns. Idempotent.
    public func close() async {
        guard !closed else { return }
        closed = true
        await listener.close()
        await acceptLoop?.value
        await server.shutdown()
    }

    /// Connections the TCP listener turned away because even its headroom was full.
    public var refusedAtTCP: Int {
        get async { await listener.refusedConnections }
    }
}
