import Synchronization

/// An HTTP/1.1 client for the node's backends (Bitcoin Core JSON-RPC, LND REST).
///
/// Connections are made by the injected connector (TCP on the event loop, or an in-memory
/// pair in tests) and kept alive per endpoint: sequential requests reuse one connection,
/// concurrent ones share a small bounded pool. A connection whose exchange failed in any
/// way is closed, never reused. A request that finds a reused connection already closed by
/// the server is sent once more on a fresh one when that is safe (the request was never
/// written, or its method is idempotent).
public final class HTTPClient: Sendable {
    public typealias Connector = @Sendable (_ host: String, _ port: Int) async throws -> any ByteStream

    public let configuration: Configuration
    private let connector: Connector
    private let sleeper: any Sleeper
    private let pools = Mutex<[HTTPEndpoint: HTTPConnectionPool]>([:])
    private let isShutDown = Atomic<Bool>(false)

    public init(configuration: Configuration = Configuration(), sleeper: any Sleeper,
                connector: @escaping Connector) {
        self.configuration = configuration
        self.sleeper = sleeper
        self.connector = connector
    }

    /// Sends a request and returns the whole response, within the configured timeout.
    public func send(_ request: HTTPRequest, to endpoint: HTTPEndpoint) async throws -> HTTPResponse {
        try await send(request, to: endpoint, timeoutMilliseconds: configuration.timeoutMilliseconds)
    }

    /// Sends a request and returns the whole response, within this timeout (nil: none).
    public func send(_ request: HTTPRequest, to endpoint: HTTPEndpoint,
                     timeoutMilliseconds: UInt64?) async throws -> HTTPResponse {
        guard let latency = configuration.latency else {
            return try await exchange(request, to: endpoint, timeoutMilliseconds: timeoutMilliseconds)
        }
        return try await latency.time { try await exchange(request, to: endpoint, timeoutMilliseconds: timeoutMilliseconds) }
    }

    private func exchange(_ request: HTTPRequest, to endpoint: HTTPEndpoint,
                          timeoutMilliseconds: UInt64?) async throws -> HTTPResponse {
        let pool = try pool(for: endpoint)
        let prepared = prepare(request, for: endpoint)
        let maxBodyBytes = configuration.limits.maxBodyBytes
        return try await HTTPDeadline.run(milliseconds: timeoutMilliseconds, sleeper: sleeper) {
            let (connection, head) = try await HTTPClient.open(prepared, pool: pool, maxBodyBytes: maxBodyBytes)
            do {
                var response = head
                while true {
                    guard let event = try await connection.nextEvent() else { throw HTTPError.unexpectedEOF }
                    switch event {
                    case .body(let piece):
                        response.body += piece
                    case .end(let keepAlive):
                        await pool.release(connection, reusable: keepAlive && connection.bufferedByteCount == 0)
                        return response
                    case .requestHead, .responseHead:
                        throw HTTPError.invalidStartLine
                    }
                }
            } catch {
                await pool.release(connection, reusable: false)
                throw error
            }
        }
    }

    /// Sends a request and returns once the response head is in; the body is then read
    /// line by line as it arrives. The timeout covers only the head, since a streamed body
    /// (a subscription) may last as long as the caller keeps reading.
    public func stream(_ request: HTTPRequest, to endpoint: HTTPEndpoint) async throws -> HTTPLineStream {
        let pool = try pool(for: endpoint)
        let prepared = prepare(request, for: endpoint)
        let (connection, head) = try await HTTPDeadline.run(
            milliseconds: configuration.timeoutMilliseconds, sleeper: sleeper
        ) {
            try await HTTPClient.open(prepared, pool: pool, maxBodyBytes: Int.max)
        }
        let (lines, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let maxLineBytes = configuration.maxStreamLineBytes
        let reader = Task {
            var splitter = HTTPLineSplitter(maxLineBytes: maxLineBytes)
            do {
                while true {
                    guard let event = try await connection.nextEvent() else { throw HTTPError.unexpectedEOF }
                    switch event {
                    case .body(let piece):
                        for line in try splitter.append(piece) { continuation.yield(line) }
                    case .end(let keepAlive):
                        if let last = splitter.finish() { continuation.yield(last) }
                        await pool.release(connection, reusable: keepAlive && connection.bufferedByteCount == 0)
                        continuation.finish()
                        return
                    case .requestHead, .responseHead:
                        throw HTTPError.invalidStartLine
                    }
                }
            } catch {
                await pool.release(connection, reusable: false)
                continuation.finish(throwing: error)
            }
        }
        // A consumer that stops early cancels the reader, whose pending read then closes
        // the connection (the rest of the body cannot be skipped cheaply).
        continuation.onTermination = { _ in reader.cancel() }
        return HTTPLineStream(response: head, lines: HTTPLineSequence(lines: lines, reader: reader))
    }

    /// Closes every idle connection; later requests fail with `clientClosed`.
    public func shutDown() async {
        isShutDown.store(true, ordering: .releasing)
        let all = pools.withLock { pools -> [HTTPConnectionPool] in
            defer { pools = [:] }
            return Array(pools.values)
        }
        for pool in all { await pool.shutDown() }
    }

    /// Open connections (idle or busy) to an endpoint.
    public func openConnectionCount(to endpoint: HTTPEndpoint) async -> Int {
        guard let pool = pools.withLock({ $0[endpoint] }) else { return 0 }
        return await pool.openConnections
    }

    private func pool(for endpoint: HTTPEndpoint) throws(HTTPError) -> HTTPConnectionPool {
        guard !isShutDown.load(ordering: .acquiring) else { throw .clientClosed }
        return pools.withLock { pools in
            if let existing = pools[endpoint] { return existing }
            let created = HTTPConnectionPool(
                endpoint: endpoint, connector: connector,
                maxConnections: configuration.maxConnectionsPerEndpoint,
                maxIdleMilliseconds: configuration.maxIdleMilliseconds, limits: configuration.limits)
            pools[endpoint] = created
            return created
        }
    }

    /// Adds `Host` and the configured default fields the request does not set itself.
    private func prepare(_ request: HTTPRequest, for endpoint: HTTPEndpoint) -> HTTPRequest {
        var prepared = request
        if !prepared.headers.contains(name: "host") {
            prepared.headers.add(name: "Host", value: endpoint.hostHeaderValue)
        }
        for field in configuration.headers where !request.headers.contains(name: field.name) {
            prepared.headers.add(name: field.name, value: field.value)
        }
        return prepared
    }

    /// Writes the request and reads up to the response head, on a pooled connection.
    /// The connection is returned held: the caller reads the body and releases it.
    private static func open(_ request: HTTPRequest, pool: HTTPConnectionPool,
                             maxBodyBytes: Int) async throws -> (HTTPConnection, HTTPResponse) {
        let bytes = try HTTPSerializer.serialize(request)
        var retried = false
        while true {
            let (connection, reused) = try await pool.acquire()
            var written = false
            do {
                connection.expectResponse(to: request.method, maxBodyBytes: maxBodyBytes)
                try await connection.write(bytes)
                written = true
                guard let event = try await connection.nextEvent() else { throw HTTPError.connectionClosed }
                guard case .responseHead(let head) = event else { throw HTTPError.invalidStartLine }
                return (connection, head)
            } catch {
                await pool.release(connection, reusable: false)
                // A kept-alive connection the server closed in the meantime fails at once;
                // one retry on a fresh connection hides that race from callers.
                let stale = !written || ((error as? HTTPError) == .connectionClosed && request.method.isIdempotent)
                if reused && stale && !retried && !Task.isCancelled {
                    retried = true
                    continue
                }
                throw error
            }
        }
    }
}
