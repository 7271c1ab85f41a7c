import Synchronization

/// An HTTP/1.1 server over any `ByteStream` source: the regtest hub serves Bitcoin Core's
/// and LND's APIs with it.
///
/// Each connection runs a keep-alive loop: read one request, await the handler, write its
/// response, repeat until either side asks to close. Pipelined requests are answered in
/// order. A malformed request gets 400 (413 for a body over the limit, 431 for an oversized
/// head) and the connection is closed, since its framing can no longer be trusted.
public final class HTTPServer: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) async -> HTTPServerResponse

    public let configuration: Configuration
    private let sleeper: any Sleeper
    private let handler: Handler
    private let activeConnections = Atomic<Int>(0)

    /// A server whose handler may stream response bodies.
    public init(configuration: Configuration = Configuration(), sleeper: any Sleeper,
                streamingHandler: @escaping Handler) {
        self.configuration = configuration
        self.sleeper = sleeper
        self.handler = streamingHandler
    }

    /// A server whose handler answers with whole responses.
    public convenience init(configuration: Configuration = Configuration(), sleeper: any Sleeper,
                            handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) {
        self.init(configuration: configuration, sleeper: sleeper) { request in
            .complete(await handler(request))
        }
    }

    /// Serves every connection the sequence yields, each in its own child task, until the
    /// sequence ends and all of them are done. Cancelling the caller closes them all.
    public func acceptLoop<Connections: AsyncSequence>(_ connections: Connections) async throws
        where Connections.Element == any ByteStream
    {
        try await withThrowingDiscardingTaskGroup { group in
            for try await stream in connections {
                guard activeConnections.wrappingAdd(1, ordering: .relaxed).newValue <= configuration.maxConnections
                else {
                    activeConnections.wrappingSubtract(1, ordering: .relaxed)
                    await stream.close()
                    continue
                }
                group.addTask {
                    await self.serve(connection: stream)
                    self.activeConnections.wrappingSubtract(1, ordering: .relaxed)
                }
            }
        }
    }

    /// Serves one connection until it closes, then closes it. Never throws: every failure
    /// ends only this connection.
    public func serve(connection stream: any ByteStream) async {
        let connection = HTTPConnection(stream: stream, kind: .request, limits: configuration.limits)
        do {
            while let (request, keepAlive) = try await readRequest(from: connection) {
                guard try await respond(to: request, keepAlive: keepAlive, on: connection) else { break }
            }
        } catch let error as HTTPError {
            if case .timeout = error {
                // The timer already answered 408; nothing more to send.
            } else {
                try? await write(errorResponse(for: error), to: connection)
            }
        } catch {
            // An I/O failure: the peer is gone, there is no one to tell.
        }
        await connection.close()
    }

    /// The next complete request and whether the client allows keep-alive after it; nil
    /// when the client closed (or idled out) between requests.
    private func readRequest(from connection: HTTPConnection) async throws -> (HTTPRequest, Bool)? {
        var request: HTTPRequest?
        var requestTimer: HTTPTimer?
        defer { requestTimer?.disarm() }
        while true {
            if let event = try connection.nextBufferedEvent() {
                switch event {
                case .requestHead(let head):
                    request = head
                    if HTTPServer.expectsContinue(head) {
                        try await write(HTTPServer.continueResponse, to: connection)
                    }
                case .body(let piece):
                    request?.body += piece
                case .end(let keepAlive):
                    guard let request else { throw HTTPError.invalidStartLine }
                    if requestTimer?.disarm() == true { throw requestTimedOut }
                    return (request, keepAlive)
                case .responseHead:
                    throw HTTPError.invalidStartLine
                }
                continue
            }
            let idle = request == nil && connection.isAtMessageBoundary
            if connection.isFinished { return nil }
            if !idle && requestTimer == nil {
                requestTimer = HTTPTimer(milliseconds: configuration.requestTimeoutMilliseconds, sleeper: sleeper) {
                    await HTTPServer.abandon(connection, with: .requestTimeout)
                }
            }
            let idleTimer = idle
                ? HTTPTimer(milliseconds: configuration.idleTimeoutMilliseconds, sleeper: sleeper) {
                    await connection.close()
                }
                : nil
            _ = try await connection.receive()
            if idleTimer?.disarm() == true { return nil }
            if requestTimer?.hasFired == true { throw requestTimedOut }
        }
    }

    /// Runs the handler and writes its response; false when the connection must close.
    private func respond(to request: HTTPRequest, keepAlive: Bool, on connection: HTTPConnection) async throws -> Bool {
        switch await handler(request) {
        case .complete(var response):
            var keep = keepAlive && !response.headers.tokens(name: "connection").contains("close")
            HTTPServer.markConnection(&response.headers, keepAlive: keep, requestVersion: request.version)
            let bytes: [UInt8]
            do {
                bytes = try HTTPSerializer.serialize(response, requestMethod: request.method)
            } catch {
                // The handler built a response that cannot be sent safely (a header value
                // with CR/LF); answer 500 instead of forwarding it.
                keep = false
                bytes = errorResponse(status: .internalServerError, message: error.description)
            }
            try await write(bytes, to: connection)
            return keep

        case .streaming(let streaming):
            // HTTP/1.0 clients do not know chunked framing: their body ends at close.
            let chunked = request.version.keepsAliveByDefault
            let bodyless = request.method == .head || streaming.status.forbidsBody
            let keep = keepAlive && (chunked || bodyless)
                && !streaming.headers.tokens(name: "connection").contains("close")
            var head = HTTPResponse(status: streaming.status, headers: streaming.headers)
            HTTPServer.markConnection(&head.headers, keepAlive: keep, requestVersion: request.version)
            let framing: HTTPSerializer.Framing = chunked && !streaming.status.forbidsBody ? .chunked : .closeDelimited
            let headBytes: [UInt8]
            do {
                headBytes = try HTTPSerializer.head(head, framing: framing)
            } catch {
                try await write(errorResponse(status: .internalServerError, message: error.description), to: connection)
                return false
            }
            try await write(headBytes, to: connection)
            if bodyless { return keep }
            do {
                for try await piece in streaming.body {
                    try await write(chunked ? HTTPSerializer.chunk(piece) : piece, to: connection)
                }
            } catch {
                return false
            }
            if chunked { try await write(HTTPSerializer.lastChunk, to: connection) }
            return keep
        }
    }

    /// Writes within the request timeout, so a client that stops reading cannot park a
    /// response forever.
    private func write(_ bytes: [UInt8], to connection: HTTPConnection) async throws {
        let timer = HTTPTimer(milliseconds: configuration.requestTimeoutMilliseconds, sleeper: sleeper) {
            await connection.close()
        }
        defer { timer.disarm() }
        try await connection.write(bytes)
    }

    private var requestTimedOut: HTTPError {
        .timeout(milliseconds: configuration.requestTimeoutMilliseconds ?? 0)
    }

    private func errorResponse(for error: HTTPError) -> [UInt8] {
        errorResponse(status: error.responseStatus, message: error.description)
    }

    /// A short plain-text error that names the broken rule (never the peer's bytes) and
    /// closes the connection.
    private func errorResponse(status: HTTPStatus, message: String) -> [UInt8] {
        let response = HTTPResponse(status: status, headers: ["Content-Type": "text/plain", "Connection": "close"],
                                    body: Array((message + "\n").utf8))
        return (try? HTTPSerializer.serialize(response)) ?? []
    }

    /// Sends a final status to a connection whose request stalled, then closes it.
    private static func abandon(_ connection: HTTPConnection, with status: HTTPStatus) async {
        let response = HTTPResponse(status: status, headers: ["Connection": "close"])
        if let bytes = try? HTTPSerializer.serialize(response) { try? await connection.write(bytes) }
        await connection.close()
    }

    /// States the connection's fate explicitly when it differs from the version default.
    private static func markConnection(_ headers: inout HTTPHeaders, keepAlive: Bool, requestVersion: HTTPVersion) {
        if !keepAlive {
            headers.replaceOrAdd(name: "Connection", value: "close")
        } else if !requestVersion.keepsAliveByDefault {
            headers.replaceOrAdd(name: "Connection", value: "keep-alive")
        }
    }

    /// An HTTP/1.1 client that sent `Expect: 100-continue` waits for this before its body
    /// (curl does so for bodies over 1 KiB).
    private static func expectsContinue(_ request: HTTPRequest) -> Bool {
        request.version.keepsAliveByDefault && request.headers.tokens(name: "expect").contains("100-continue")
    }

    private static let continueResponse: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
}
