import Transport

/// One connection to an Electrum server: newline-delimited JSON-RPC 2.0 over any
/// `ByteStream` (TCP, or TLS over TCP), on the event loop, never blocking it.
///
/// - Pipelining: any number of calls may be in flight; each request has its own id and
///   replies are matched by id, in whatever order the server sends them. Requests queued
///   while a write is under way go out together in the next write.
/// - Batches: `batch` sends several requests as one JSON array and returns each reply.
/// - Notifications (messages without an id) go to every `notifications()` stream.
/// - Anything the protocol does not allow — a line over `maxLineBytes`, a line that is
///   not JSON, a reply to an id never sent — drops the connection: every pending and
///   later call throws that error and the notification streams finish, so the owner
///   reconnects instead of trusting a confused server.
/// - A call without a reply within `timeoutMilliseconds` (given a sleeper) drops the
///   connection too: a server that stopped answering is dead, and a late reply could not
///   be told from a confused one.
public actor ElectrumConnection {
    /// Enough for the largest consensus-valid transaction in hex (4 MB, 8 MB of hex) with
    /// room for a batch; a line beyond it is refused before it is buffered further.
    public static let defaultMaxLineBytes = 16 << 20

    private let stream: any ByteStream
    private let sleeper: (any Sleeper)?
    private let timeoutMilliseconds: UInt64
    private var splitter: ElectrumLineSplitter
    private var nextID: UInt64 = 1
    private var pending: [UInt64: PendingReply] = [:]
    private var subscribers: [UInt64: AsyncStream<ElectrumNotification>.Continuation] = [:]
    private var nextSubscriber: UInt64 = 1
    private var outbox: [UInt8] = []
    private var flushing = false
    /// Set once: why the connection ended. Every later call throws it.
    private var failure: ElectrumError?
    /// A call sent along with every request (`padReplies`), its answer dropped.
    private var filler: (method: String, params: [JSONValue])?

    /// Who waits for the reply to one id.
    private struct PendingReply {
        let method: String
        let deliver: (Result<JSONValue, ElectrumError>) -> Void
    }

    /// Starts reading `stream` at once (a notification can arrive before any call).
    /// Without a sleeper, calls wait for their reply as long as the connection lasts.
    public init(stream: any ByteStream, maxLineBytes: Int = ElectrumConnection.defaultMaxLineBytes,
                sleeper: (any Sleeper)? = nil, timeoutMilliseconds: UInt64 = 30_000) {
        self.stream = stream
        self.sleeper = sleeper
        self.timeoutMilliseconds = timeoutMilliseconds
        splitter = ElectrumLineSplitter(maxLineBytes: maxLineBytes)
        Task { await self.readLoop() }
    }

    /// Why the connection ended, or nil while it is up.
    public var closedReason: ElectrumError? { failure }

    /// Calls `method` and returns its `result`; a JSON-RPC error reply throws `.server`.
    public func call(_ method: String, _ params: [JSONValue] = []) async throws(ElectrumError) -> JSONValue {
        if let failure { throw failure }
        if let filler { return try await sendBatch([(method, params), filler])[0].get() }
        let id = nextID
        nextID += 1
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<JSONValue, ElectrumError>, Never>) in
            pending[id] = PendingReply(method: method) { continuation.resume(returning: $0) }
            send(Self.request(id: id, method: method, params: params).canonicalBytes)
            armTimeout(id, method: method)
        }
        return try result.get()
    }

    /// Sends `calls` as one JSON-RPC batch (one line, one write) and returns each call's
    /// outcome in order: one refused call does not fail the others. Throws only when the
    /// connection is or goes down.
    public func batch(_ calls: [(method: String, params: [JSONValue])]) async throws(ElectrumError)
        -> [Result<JSONValue, ElectrumError>] {
        guard !calls.isEmpty else { throw .invalidRequest(reason: "an empty batch (JSON-RPC 2.0 forbids it)") }
        guard let filler else { return try await sendBatch(calls) }
        return Array(try await sendBatch(calls + [filler]).prefix(calls.count))
    }

    /// ElectrumX 2.0 pads its replies against traffic analysis (`PaddedRSTransport`):
    /// once a session has received 1 KiB, a reply shorter than 1,024 bytes waits up to a
    /// second for more to send with it. A node asking one question at a time would wait a
    /// second for each. With `call` set, every request leaves in a batch with it, whose
    /// answer makes the reply long enough to go at once; the padding would have sent those
    /// bytes anyway. Its answer is dropped.
    public func padReplies(with call: (method: String, params: [JSONValue])?) {
        filler = call
    }

    private func sendBatch(_ calls: [(method: String, params: [JSONValue])]) async throws(ElectrumError)
        -> [Result<JSONValue, ElectrumError>] {
        if let failure { throw failure }
        let firstID = nextID
        nextID += UInt64(calls.count)
        let results = await withCheckedContinuation {
            (continuation: CheckedContinuation<[Result<JSONValue, ElectrumError>], Never>) in
            let collector = BatchCollector(count: calls.count) { continuation.resume(returning: $0) }
            var requests: [JSONValue] = []
            for (offset, call) in calls.enumerated() {
                let id = firstID + UInt64(offset)
                pending[id] = PendingReply(method: call.method) { collector.deliver($0, at: offset) }
                requests.append(Self.request(id: id, method: call.method, params: call.params))
            }
            send(JSONValue.array(requests).canonicalBytes)
            armTimeout(firstID, method: calls[0].method)
        }
        if let failure, results.contains(where: { $0.failureIs(failure) }) { throw failure }
        return results
    }

    /// A stream of the server's notifications from now on. It finishes when the
    /// connection ends; a consumer that stops iterating unregisters itself.
    public func notifications() -> AsyncStream<ElectrumNotification> {
        let (stream, continuation) = AsyncStream<ElectrumNotification>.makeStream()
        guard failure == nil else {
            continuation.finish()
            return stream
        }
        let key = nextSubscriber
        nextSubscriber += 1
        subscribers[key] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(key) }
        }
        return stream
    }

    /// Closes the connection: pending calls throw `.closed`, the streams finish.
    public func close() async {
        await fail(.closed(reason: "this node closed the connection"))
    }

    // MARK: - reading

    private func readLoop() async {
        while failure == nil {
            let bytes: [UInt8]?
            do {
                bytes = try await stream.read()
            } catch {
                return await fail(.closed(reason: "reading failed: \(ErrorText.describe(error))"))
            }
            guard let bytes else { return await fail(.closed(reason: "the server closed the connection")) }
            do throws(ElectrumError) {
                for line in try splitter.append(bytes) { try handle(line) }
            } catch {
                return await fail(error)
            }
        }
    }

    private func handle(_ line: [UInt8]) throws(ElectrumError) {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
        let value: JSONValue
        do {
            value = try JSONParser.parse(line, limits: JSONParser.Limits(maxLength: line.count, maxDepth: 64))
        } catch {
            throw .malformed(reason: "a line that is not JSON (\(error))")
        }
        switch value {
        case .object: try handleMessage(value)
        case .array(let replies) where !replies.isEmpty: for reply in replies { try handleMessage(reply) }
        default: throw .malformed(reason: "a line that is neither a JSON-RPC message nor a batch of them")
        }
    }

    private func handleMessage(_ message: JSONValue) throws(ElectrumError) {
        guard message.objectValue != nil else { throw .malformed(reason: "a batch element that is not an object") }
        let id = message["id"] ?? .null
        if id == .null, let method = message["method"]?.stringValue {
            let params = message["params"]?.arrayValue ?? []
            let notification = ElectrumNotification(method: method, params: params)
            for subscriber in subscribers.values { subscriber.yield(notification) }
            return
        }
        if id == .null, let error = message["error"] {
            // The server could not even read a request: this client wrote something wrong.
            throw .malformed(reason: "the server could not read a request: \(error["message"]?.stringValue ?? "no message")")
        }
        guard let number = id.uint64Value, let reply = pending.removeValue(forKey: number) else {
            throw .malformed(reason: "a reply to id \(id.canonicalString), which this client never sent or already had")
        }
        if let error = message["error"], error != .null {
            let code = error["code"]?.int64Value.flatMap { Int(exactly: $0) } ?? 0
            let text = error["message"]?.stringValue ?? "no message"
            reply.deliver(.failure(.server(method: reply.method, code: code, message: String(text.prefix(500)))))
        } else if let result = message["result"] {
            reply.deliver(.success(result))
        } else {
            throw .malformed(reason: "a reply to \(reply.method) with neither result nor error")
        }
    }

    // MARK: - writing

    private static func request(id: UInt64, method: String, params: [JSONValue]) -> JSONValue {
        .object(["jsonrpc": .string("2.0"), "id": .integer(id), "method": .string(method), "params": .array(params)])
    }

    /// Queues one line; a single writer drains the queue so lines never interleave.
    private func send(_ line: [UInt8]) {
        outbox += line
        outbox.append(0x0A)
        guard !flushing else { return }
        flushing = true
        Task { await self.flush() }
    }

    private func flush() async {
        while failure == nil, !outbox.isEmpty {
            let bytes = outbox
            outbox = []
            do {
                try await stream.write(bytes)
            } catch {
                await fail(.closed(reason: "sending failed: \(ErrorText.describe(error))"))
            }
        }
        outbox = []
        flushing = false
    }

    // MARK: - ending

    /// Drops the connection if `id` is still unanswered after the timeout (for a batch,
    /// its first id: the server answers a batch as one line).
    private func armTimeout(_ id: UInt64, method: String) {
        guard let sleeper else { return }
        let milliseconds = timeoutMilliseconds
        Task { [weak self] in
            try? await sleeper.sleep(milliseconds: milliseconds)
            await self?.expire(id, method: method, milliseconds: milliseconds)
        }
    }

    private func expire(_ id: UInt64, method: String, milliseconds: UInt64) async {
        guard pending[id] != nil else { return }
        await fail(.timedOut(method: method, milliseconds: milliseconds))
    }

    private func fail(_ error: ElectrumError) async {
        guard failure == nil else { return }
        failure = error
        let waiting = pending
        pending = [:]
        for reply in waiting.values { reply.deliver(.failure(error)) }
        let streams = subscribers
        subscribers = [:]
        for subscriber in streams.values { subscriber.finish() }
        await stream.close()
    }

    private func unsubscribe(_ key: UInt64) {
        subscribers[key] = nil
    }
}

/// Gathers a batch's replies, which may arrive in any order, and hands them over once
/// all are in. Touched only on the connection's actor.
private final class BatchCollector {
    private var results: [Result<JSONValue, ElectrumError>?]
    private var remaining: Int
    private let done: ([Result<JSONValue, ElectrumError>]) -> Void

    init(count: Int, done: @escaping ([Result<JSONValue, ElectrumError>]) -> Void) {
        results = Array(repeating: nil, count: count)
        remaining = count
        self.done = done
    }

    func deliver(_ result: Result<JSONValue, ElectrumError>, at index: Int) {
        guard results[index] == nil else { return }
        results[index] = result
        remaining -= 1
        if remaining == 0 { done(results.map { $0! }) }
    }
}

private extension Result where Failure == ElectrumError {
    func failureIs(_ error: ElectrumError) -> Bool {
        if case .failure(let failure) = self { return failure == error }
        return false
    }
}
