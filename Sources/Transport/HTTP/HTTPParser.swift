/// An incremental HTTP/1.1 message parser with no I/O: append bytes as they arrive, pull
/// events until it asks for more. One parser reads one direction of one connection, any
/// number of messages in a row (keep-alive and pipelining).
///
/// Events come out in order: a head (`requestHead` or `responseHead`, body empty), zero or
/// more `body` pieces, then `end`. Pieces are handed out as soon as they arrive, so a
/// streaming reader sees a chunk before the message is complete.
///
/// Malformed input throws a typed `HTTPError`, and the parser stays failed: every later
/// `next()` throws the same error, since the framing of what follows is unknowable. No
/// input makes it trap; `HTTPParser.fuzz` is the entry libFuzzer drives to check that.
public struct HTTPParser: Sendable {
    public enum Kind: Sendable {
        case request
        case response
    }

    public enum Event: Sendable, Equatable {
        case requestHead(HTTPRequest)
        case responseHead(HTTPResponse)
        case body([UInt8])
        /// The message is complete; `keepAlive` says whether another may follow on this
        /// connection (false for `Connection: close`, HTTP/1.0 defaults, a close-delimited
        /// body or a protocol switch).
        case end(keepAlive: Bool)
    }

    private enum State: Sendable {
        case startLine
        case headers
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkEnd
        case trailers
        case untilClose
        case end
        /// After `101 Switching Protocols` the bytes are not HTTP any more.
        case switched
    }

    /// What is known of the head being read, before its framing is decided.
    private struct PendingHead: Sendable {
        var method = HTTPMethod.get
        var target = ""
        var version = HTTPVersion.http1_1
        var status = HTTPStatus.ok
        var headers = HTTPHeaders()
    }

    public let kind: Kind
    public var limits: Limits
    /// Response mode: the method of the request being answered. A response to HEAD has no
    /// body whatever its Content-Length says, so the client sets this before each response.
    public var requestMethod: HTTPMethod = .get

    private var buffer: [UInt8] = []
    /// Start of the unconsumed bytes in `buffer`.
    private var position = 0
    /// Unconsumed bytes already searched for a line feed, so a line that trickles in one
    /// byte at a time is not rescanned from its start (that would be quadratic).
    private var scanned = 0
    private var sawEOF = false
    private var state = State.startLine
    private var failure: HTTPError?
    private var head = PendingHead()
    private var headBytes = 0
    private var trailerCount = 0
    private var bodyBytes = 0
    private var keepAlive = true
    private var stateAfterEnd = State.startLine

    public init(kind: Kind, limits: Limits) {
        self.kind = kind
        self.limits = limits
    }

    /// Adds bytes received from the peer. Bytes after `finish()` are ignored.
    public mutating func append(_ bytes: [UInt8]) {
        guard !sawEOF, !bytes.isEmpty else { return }
        if position == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            position = 0
        } else if position >= 4096 && position * 2 >= buffer.count {
            // Drop consumed bytes only once they dominate, so compaction stays amortised.
            buffer.removeFirst(position)
            position = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Records that the peer closed its side: a close-delimited body ends, and a message
    /// cut short becomes `unexpectedEOF`.
    public mutating func finish() {
        sawEOF = true
    }

    /// Whether the peer's side has ended (`finish()` was called).
    public var isFinished: Bool { sawEOF }

    /// True between messages with nothing buffered: a read timeout here is an idle
    /// connection, not a stalled request.
    public var isAtMessageBoundary: Bool {
        if case .startLine = state, headBytes == 0, position == buffer.count { return true }
        return false
    }

    /// Received bytes not yet turned into events.
    public var bufferedByteCount: Int { buffer.count - position }

    /// The next event, or nil when more bytes (or `finish()`) are needed. After `finish()`,
    /// nil at a message boundary means the peer closed cleanly.
    public mutating func next() throws(HTTPError) -> Event? {
        if let failure { throw failure }
        do {
            return try step()
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func step() throws(HTTPError) -> Event? {
        while true {
            switch state {
            case .startLine:
                guard let line = try takeHeadLine() else {
                    if sawEOF && position < buffer.count { throw .unexpectedEOF }
                    return nil
                }
                // RFC 9112 2.2: empty lines before a request line are skipped; they still
                // count toward the head limit, so a flood of them ends in an error.
                if line.isEmpty { continue }
                try parseStartLine(line)
                state = .headers

            case .headers:
                guard let line = try takeHeadLine() else { return try needMore() }
                if line.isEmpty {
                    if let event = try finishHead() { return event }
                    continue
                }
                guard head.headers.count < limits.maxHeaderCount else {
                    throw .tooManyHeaders(limit: limits.maxHeaderCount)
                }
                let field = try HTTPParser.parseField(line)
                head.headers.add(name: field.name, value: field.value)

            case .fixedBody(let remaining):
                guard let piece = takeBody(upTo: remaining) else { return try needMore() }
                state = piece.count == remaining ? .end : .fixedBody(remaining: remaining - piece.count)
                return .body(piece)

            case .chunkSize:
                guard let line = try takeLine(limit: limits.maxChunkLineBytes,
                                              tooLong: .chunkLineTooLong(limit: limits.maxChunkLineBytes))
                else { return try needMore() }
                let size = try HTTPParser.parseChunkSize(line)
                guard size <= limits.maxBodyBytes - bodyBytes else {
                    throw .bodyTooLarge(limit: limits.maxBodyBytes)
                }
                bodyBytes += size
                state = size == 0 ? .trailers : .chunkData(remaining: size)

            case .chunkData(let remaining):
                guard let piece = takeBody(upTo: remaining) else { return try needMore() }
                state = piece.count == remaining ? .chunkEnd : .chunkData(remaining: remaining - piece.count)
                return .body(piece)

            case .chunkEnd:
                let available = buffer.count - position
                guard available > 0 else { return try needMore() }
                if buffer[position] == 0x0A {
                    consume(1)
                } else if buffer[position] == 0x0D {
                    guard available >= 2 else { return try needMore() }
                    guard buffer[position + 1] == 0x0A else { throw .invalidChunkTerminator }
                    consume(2)
                } else {
                    throw .invalidChunkTerminator
                }
                state = .chunkSize

            case .trailers:
                // Trailer fields are checked for shape and counted, then dropped: nothing
                // here uses them, and merging them into the head would let a peer change
                // headers after we acted on them.
                guard let line = try takeHeadLine() else { return try needMore() }
                if line.isEmpty {
                    state = .end
                    continue
                }
                trailerCount += 1
                guard trailerCount <= limits.maxHeaderCount else {
                    throw .tooManyHeaders(limit: limits.maxHeaderCount)
                }
                _ = try HTTPParser.parseField(line)

            case .untilClose:
                if let piece = takeBody(upTo: Int.max) {
                    guard piece.count <= limits.maxBodyBytes - bodyBytes else {
                        throw .bodyTooLarge(limit: limits.maxBodyBytes)
                    }
                    bodyBytes += piece.count
                    return .body(piece)
                }
                guard sawEOF else { return nil }
                state = .end

            case .end:
                let alive = keepAlive
                state = stateAfterEnd
                head = PendingHead()
                headBytes = 0
                trailerCount = 0
                bodyBytes = 0
                keepAlive = true
                stateAfterEnd = .startLine
                return .end(keepAlive: alive)

            case .switched:
                return nil
            }
        }
    }

    private func needMore() throws(HTTPError) -> Event? {
        if sawEOF { throw .unexpectedEOF }
        return nil
    }

    private mutating func parseStartLine(_ line: ArraySlice<UInt8>) throws(HTTPError) {
        switch kind {
        case .request:
            (head.method, head.target, head.version) = try HTTPParser.parseRequestLine(line)
        case .response:
            (head.version, head.status) = try HTTPParser.parseStatusLine(line)
        }
    }

    /// Decides the body framing from the completed head (RFC 9112 6.3) and emits the head;
    /// nil for an interim 1xx response, which is skipped.
    private mutating func finishHead() throws(HTTPError) -> Event? {
        let headers = head.headers
        headBytes = 0
        keepAlive = HTTPRequest.keepAlive(version: head.version, headers: headers)
        switch kind {
        case .request:
            switch try framing(headers, chunkedAllowed: head.version.keepsAliveByDefault) {
            case .none, .length(0): state = .end
            case .length(let count): state = .fixedBody(remaining: count)
            case .chunked: state = .chunkSize
            }
            return .requestHead(HTTPRequest(method: head.method, target: head.target,
                                            version: head.version, headers: headers))
        case .response:
            let status = head.status
            if status.isInformational && status != .switchingProtocols {
                head = PendingHead()
                state = .startLine
                return nil
            }
            if status == .switchingProtocols {
                keepAlive = false
                state = .end
                stateAfterEnd = .switched
            } else if requestMethod == .head || status.forbidsBody {
                state = .end
            } else {
                switch try framing(headers, chunkedAllowed: true) {
                case .none:
                    keepAlive = false
                    state = .untilClose
                case .length(0): state = .end
                case .length(let count): state = .fixedBody(remaining: count)
                case .chunked: state = .chunkSize
                }
            }
            return .responseHead(HTTPResponse(status: status, version: head.version, headers: headers))
        }
    }

    private enum Framing {
        case none
        case length(Int)
        case chunked
    }

    private func framing(_ headers: HTTPHeaders, chunkedAllowed: Bool) throws(HTTPError) -> Framing {
        if headers.contains(name: "transfer-encoding") {
            guard !headers.contains(name: "content-length") else { throw .contentLengthWithTransferEncoding }
            // Only plain chunked: we decode no compression, and an HTTP/1.0 request with a
            // transfer coding is faulty framing (RFC 9112 6.1).
            guard chunkedAllowed, headers.tokens(name: "transfer-encoding") == ["chunked"] else {
                throw .unsupportedTransferEncoding
            }
            return .chunked
        }
        guard let length = try HTTPParser.contentLength(headers["content-length"]) else { return .none }
        guard length <= limits.maxBodyBytes else { throw .bodyTooLarge(limit: limits.maxBodyBytes) }
        return .length(length)
    }

    /// A line of the head or trailer section, charged against the section's byte limit.
    private mutating func takeHeadLine() throws(HTTPError) -> ArraySlice<UInt8>? {
        let limit = limits.maxHeaderSectionBytes
        guard let line = try takeLine(limit: limit - headBytes, tooLong: .headerSectionTooLarge(limit: limit))
        else { return nil }
        return line
    }

    /// The next line without its LF or CRLF, or nil if no full line is buffered yet.
    /// `limit` bounds the line including its ending, so a peer that never sends LF cannot
    /// make us buffer without end.
    private mutating func takeLine(limit: Int, tooLong: HTTPError) throws(HTTPError) -> ArraySlice<UInt8>? {
        let searchFrom = position + scanned
        guard let lineFeed = buffer[searchFrom...].firstIndex(of: 0x0A) else {
            scanned = buffer.count - position
            if scanned >= limit { throw tooLong }
            return nil
        }
        let length = lineFeed - position + 1
        guard length <= limit else { throw tooLong }
        var end = lineFeed
        if end > position && buffer[end - 1] == 0x0D { end -= 1 }
        let line = buffer[position..<end]
        if case .startLine = state { headBytes += length }
        else if case .headers = state { headBytes += length }
        else if case .trailers = state { headBytes += length }
        position = lineFeed + 1
        scanned = 0
        return line
    }

    /// Up to `count` buffered body bytes, or nil if none are buffered.
    private mutating func takeBody(upTo count: Int) -> [UInt8]? {
        let available = buffer.count - position
        guard available > 0 else { return nil }
        let taken = min(available, count)
        let piece = Array(buffer[position..<(position + taken)])
        consume(taken)
        return piece
    }

    private mutating func consume(_ count: Int) {
        position += count
        scanned = 0
    }
}
