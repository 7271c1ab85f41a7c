/// The client's connections to one endpoint: at most `maxConnections` open, idle ones kept
/// for reuse, and callers beyond the bound queued in arrival order.
///
/// Every open connection holds one slot in `openCount` from the connect until it is closed.
/// A freed slot goes straight to the first waiter (as a connection when the old one is
/// reusable, else as permission to dial), so the bound holds without a retry loop.
actor HTTPConnectionPool {
    private struct Waiter {
        let id: UInt64
        /// Resumed with a reusable connection, or nil: "a slot is yours, dial".
        let continuation: CheckedContinuation<HTTPConnection?, any Error>
    }

    private let endpoint: HTTPEndpoint
    private let connector: HTTPClient.Connector
    private let maxConnections: Int
    private let maxIdle: Duration
    private let limits: HTTPParser.Limits
    private var idle: [(connection: HTTPConnection, since: ContinuousClock.Instant)] = []
    private var openCount = 0
    private var waiters: [Waiter] = []
    private var nextWaiterID: UInt64 = 0
    private var isShutDown = false

    init(endpoint: HTTPEndpoint, connector: @escaping HTTPClient.Connector, maxConnections: Int,
         maxIdleMilliseconds: UInt64, limits: HTTPParser.Limits) {
        self.endpoint = endpoint
        self.connector = connector
        self.maxConnections = max(1, maxConnections)
        self.maxIdle = .milliseconds(Int64(clamping: maxIdleMilliseconds))
        self.limits = limits
    }

    /// Connections currently open (idle or in use), for tests and diagnostics.
    var openConnections: Int { openCount }

    /// A connection for one exchange, and whether it was used before (a reused connection
    /// may have been closed by the server meanwhile, which makes a retry safe).
    func acquire() async throws -> (connection: HTTPConnection, reused: Bool) {
        guard !isShutDown else { throw HTTPError.clientClosed }
        try Task.checkCancellation()
        let now = ContinuousClock.now
        while let entry = idle.popLast() {
            // Servers drop idle connections after their own timeout (Bitcoin Core: 30 s);
            // not reusing old ones avoids sending a request into a closing socket.
            if !entry.connection.isClosed && now - entry.since < maxIdle { return (entry.connection, true) }
            openCount -= 1
            Task { await entry.connection.close() }
        }
        if openCount < maxConnections {
            openCount += 1
            return (try await dial(), false)
        }
        let id = nextWaiterID
        nextWaiterID += 1
        let handed: HTTPConnection? = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiters.append(Waiter(id: id, continuation: continuation))
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
        if let handed { return (handed, true) }
        return (try await dial(), false)
    }

    /// Gives a connection back. Reusable means the exchange completed, the server allows
    /// keep-alive and nothing unexpected is buffered; anything else is closed.
    func release(_ connection: HTTPConnection, reusable: Bool) async {
        if reusable && !isShutDown && !connection.isClosed {
            if !waiters.isEmpty {
                waiters.removeFirst().continuation.resume(returning: connection)
            } else {
                idle.append((connection, .now))
            }
            return
        }
        slotFreed()
        await connection.close()
    }

    /// Closes idle connections and fails queued callers; connections in use are closed
    /// when they come back.
    func shutDown() async {
        isShutDown = true
        let closing = idle.map(\.connection)
        idle = []
        openCount -= closing.count
        let queued = waiters
        waiters = []
        for waiter in queued { waiter.continuation.resume(throwing: HTTPError.clientClosed) }
        for connection in closing { await connection.close() }
    }

    /// Dials on a slot already counted in `openCount`; a failure frees the slot.
    private func dial() async throws -> HTTPConnection {
        let stream: any ByteStream
        do {
            stream = try await connector(endpoint.host, endpoint.port)
        } catch {
            slotFreed()
            throw error
        }
        guard !isShutDown else {
            slotFreed()
            await stream.close()
            throw HTTPError.clientClosed
        }
        return HTTPConnection(stream: stream, kind: .response, limits: limits)
    }

    private func slotFreed() {
        if !waiters.isEmpty && !isShutDown {
            waiters.removeFirst().continuation.resume(returning: nil)
        } else {
            openCount -= 1
        }
    }

    private func cancelWaiter(_ id: UInt64) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: CancellationError())
    }
}
