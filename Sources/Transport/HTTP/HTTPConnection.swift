import Synchronization

/// One HTTP connection: a byte stream and the parser for what it receives. The thin I/O
/// half of the design; every protocol decision is the parser's.
///
/// Used by one task at a time (the pool hands a client connection to one exchange; the
/// server gives each connection one task); the parser sits in a Mutex so the type is
/// honestly Sendable as it moves between those tasks.
final class HTTPConnection: Sendable {
    let stream: any ByteStream
    private let parser: Mutex<HTTPParser>
    private let closed = Atomic<Bool>(false)

    init(stream: any ByteStream, kind: HTTPParser.Kind, limits: HTTPParser.Limits) {
        self.stream = stream
        parser = Mutex(HTTPParser(kind: kind, limits: limits))
    }

    var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// Response mode: what the next response answers and how large its body may be.
    func expectResponse(to method: HTTPMethod, maxBodyBytes: Int) {
        parser.withLock {
            $0.requestMethod = method
            $0.limits.maxBodyBytes = maxBodyBytes
        }
    }

    /// The peer closed its side (the parser saw EOF).
    var isFinished: Bool { parser.withLock { $0.isFinished } }

    var isAtMessageBoundary: Bool { parser.withLock { $0.isAtMessageBoundary } }
    var bufferedByteCount: Int { parser.withLock { $0.bufferedByteCount } }

    /// The next event already derivable from received bytes, without reading.
    func nextBufferedEvent() throws(HTTPError) -> HTTPParser.Event? {
        try parser.withLock { (parser: inout HTTPParser) throws(HTTPError) -> HTTPParser.Event? in
            try parser.next()
        }
    }

    /// Reads once from the stream into the parser; false once the peer has closed.
    func receive() async throws -> Bool {
        if parser.withLock({ $0.isFinished }) { return false }
        let bytes = try await withTaskCancellationHandler {
            try await stream.read()
        } onCancel: {
            // A read on a ByteStream does not observe cancellation; closing the stream is
            // what ends it.
            self.closeInBackground()
        }
        parser.withLock { parser in
            if let bytes { parser.append(bytes) } else { parser.finish() }
        }
        return bytes != nil
    }

    /// The next event, reading as needed; nil when the peer closed at a message boundary.
    func nextEvent() async throws -> HTTPParser.Event? {
        while true {
            if let event = try nextBufferedEvent() { return event }
            guard try await receive() else {
                // EOF was recorded: the parser now either ends a close-delimited body,
                // throws unexpectedEOF mid-message, or reports a clean end with nil.
                return try nextBufferedEvent()
            }
        }
    }

    func write(_ bytes: [UInt8]) async throws {
        guard !bytes.isEmpty else { return }
        try await withTaskCancellationHandler {
            try await stream.write(bytes)
        } onCancel: {
            self.closeInBackground()
        }
    }

    func close() async {
        closed.store(true, ordering: .releasing)
        await stream.close()
    }

    private func closeInBackground() {
        closed.store(true, ordering: .releasing)
        let stream = self.stream
        Task { await stream.close() }
    }
}
