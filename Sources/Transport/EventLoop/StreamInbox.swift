import Synchronization

/// The read side of a libuv stream connection: the bytes the loop has read and not yet
/// handed out, where reading stands, and the one reader waiting for more.
///
/// Why a lock and not the loop's actor: a reader on the cooperative pool that awaited an
/// actor pinned to the loop crossed threads four times per read (to the loop, back to the
/// pool when the continuation resumed, to the loop again to finish the actor's method,
/// back to the pool). Here a reader takes buffered bytes on its own thread, and a reader
/// that must wait parks its continuation under the lock: the loop's read callback hands
/// the next chunk straight to it, one wake-up per read (docs/PERFORMANCE.md, "Reads
/// without the loop's actor").
///
/// Pure bookkeeping, no libuv: `UVStreamCore` makes the libuv calls each answer asks for
/// (start reading, stop reading), on the loop thread. Every method is callable from any
/// thread; the loop-side ones (`deliver`, `finish`, `close`, `startReading`) are called on
/// the loop thread only, so their effects are ordered with libuv's callbacks.
final class StreamInbox: Sendable {
    enum ReadState {
        /// Reading not started yet: `UVStreamCore` starts it when it adopts its handle;
        /// a read that comes first asks the loop to start it.
        case idle
        case reading
        /// Stopped because `limit` bytes wait unread; the read that drains them asks the
        /// loop to start again.
        case paused
        case ended
        case failed(LibUVError)
    }

    typealias Waiter = CheckedContinuation<[UInt8]?, any Error>

    /// What a read found without waiting.
    enum Taken {
        case bytes([UInt8])
        case end
        case failure(any Error)

        /// As `read()` returns it: bytes, nil at the end, or the failure thrown.
        func result() throws -> [UInt8]? {
            switch self {
            case .bytes(let bytes): return bytes
            case .end: return nil
            case .failure(let error): throw error
            }
        }
    }

    /// What `wait` did with the reader's continuation.
    enum Parked {
        /// Something was there after all: resume the reader with it.
        case ready(Taken)
        /// Parked; the loop's next read resumes it.
        case parked
    }

    /// What the loop does with bytes it read.
    enum Delivery {
        /// A reader was waiting: resume it with these bytes.
        case handOver(Waiter, [UInt8])
        /// Buffered; `pause`: the limit is reached, stop reading.
        case buffered(pause: Bool)
        /// The inbox is closed: the bytes are dropped.
        case dropped
    }

    private struct Shared {
        var buffered: [UInt8] = []
        var state = ReadState.idle
        var closed = false
        var waiter: (token: Int, continuation: Waiter)?
        /// How many bytes the waiting reader wants before it is woken (at least 1).
        var wanted = 1
        var nextToken = 0
        /// A start of reading is queued on the loop and has not run yet, so a burst of
        /// reads asks for it once.
        var startQueued = false
        /// A reader has asked for bytes at least once: until then reading pauses at
        /// `earlyLimit`.
        var readerCame = false
    }

    /// Bytes read ahead before reading pauses.
    let limit: Int
    /// Bytes read ahead before the first read: a connection starts reading when it is
    /// accepted or connected, and until its owner reads, it holds at most about one early
    /// read's worth (the peer's first message is far smaller), so sockets a flood opens and
    /// never gets served cost no more than the kernel's own buffers did.
    let earlyLimit: Int
    /// The most one read takes before the owner's first read (then `EventLoop.readBufferSize`).
    static let earlyReadSize = 64 * 1024
    private let shared = Mutex(Shared())

    init(limit: Int) {
        self.limit = max(1, limit)
        earlyLimit = min(self.limit, Self.earlyReadSize)
    }

    /// How many bytes the loop's next read may take: `earlyReadSize` until a reader has
    /// come, so a connection nobody reads holds below `earlyLimit` plus one early read.
    var readSize: Int {
        shared.withLock { $0.readerCame ? EventLoop.readBufferSize : Self.earlyReadSize }
    }

    // MARK: The reader's side (any thread)

    /// Takes everything buffered once there are `atLeast` bytes (or the end or the failure
    /// has come). When the reader must wait, `taken` is nil and `token` names its wait, so
    /// a late cancellation cannot fail a later read. `startReading` is true when the caller
    /// must ask the loop to (re)start reading.
    func take(atLeast wanted: Int) -> (taken: Taken?, token: Int, startReading: Bool) {
        shared.withLock { state in
            state.readerCame = true
            let taken = Self.take(&state, atLeast: wanted, limit: limit)
            let token = state.nextToken
            if taken == nil { state.nextToken += 1 }
            return (taken, token, Self.needsStart(&state))
        }
    }

    /// Parks `continuation` unless something arrived since `take()`.
    func wait(token: Int, atLeast wanted: Int, _ continuation: Waiter) -> (parked: Parked, startReading: Bool) {
        shared.withLock { state in
            if let taken = Self.take(&state, atLeast: wanted, limit: limit) {
                return (.ready(taken), Self.needsStart(&state))
            }
            precondition(state.waiter == nil, "a stream supports one reader at a time")
            state.waiter = (token, continuation)
            state.wanted = Self.wanted(wanted, limit: limit)
            return (.parked, Self.needsStart(&state))
        }
    }

    /// The waiting reader with `token`, taken out so the caller can fail it with a
    /// cancellation; nil if it was resumed already.
    func cancel(token: Int) -> Waiter? {
        shared.withLock { state in
            guard let waiter = state.waiter, waiter.token == token else { return nil }
            state.waiter = nil
            return waiter.continuation
        }
    }

    var bufferedByteCount: Int { shared.withLock { $0.buffered.count } }

    /// Reading holds off at the limit. A pause the reader has drained is not one any more:
    /// its restart is queued on the loop, which only has not run it yet.
    var isPaused: Bool {
        shared.withLock { state in
            if case .paused = state.state { return !state.startQueued }
            return false
        }
    }

    /// What a reader wanting `wanted` bytes takes now. Bytes already buffered still go out
    /// before the end or the failure; fewer than wanted only once no more can come.
    private static func take(_ state: inout Shared, atLeast wanted: Int, limit: Int) -> Taken? {
        if state.closed { return .end }
        let more: Bool
        switch state.state {
        case .idle, .reading: more = true
        case .paused, .ended, .failed: more = false
        }
        if !state.buffered.isEmpty && (state.buffered.count >= Self.wanted(wanted, limit: limit) || !more) {
            var chunk: [UInt8] = []
            swap(&chunk, &state.buffered)
            return .bytes(chunk)
        }
        switch state.state {
        case .ended: return .end
        case .failed(let error): return .failure(error)
        case .idle, .paused, .reading: return nil
        }
    }

    /// A wish the buffer can always meet: never more than the read-ahead limit.
    private static func wanted(_ wanted: Int, limit: Int) -> Int {
        min(max(1, wanted), limit)
    }

    /// True once per needed start: reading is idle, or paused with the buffer drained.
    private static func needsStart(_ state: inout Shared) -> Bool {
        guard !state.closed, !state.startQueued else { return false }
        switch state.state {
        case .idle: break
        case .paused where state.buffered.count == 0: break
        default: return false
        }
        state.startQueued = true
        return true
    }

    // MARK: The loop's side (loop thread)

    /// Whether the loop should call `uv_read_start` now: the queued start is due and
    /// reading is idle or paused. Marks it reading.
    func startReading() -> Bool {
        shared.withLock { state in
            state.startQueued = false
            guard !state.closed else { return false }
            switch state.state {
            case .idle, .paused:
                state.state = .reading
                return true
            case .reading, .ended, .failed:
                return false
            }
        }
    }

    /// Bytes libuv read.
    func deliver(_ bytes: UnsafeRawBufferPointer) -> Delivery {
        shared.withLock { state in
            if state.closed { return .dropped }
            // One copy out of the loop's buffer either way: into an empty buffer that then
            // goes over whole, or behind the bytes held back for the waiting reader.
            state.buffered.append(contentsOf: bytes)
            if let waiter = state.waiter, state.buffered.count >= state.wanted {
                state.waiter = nil
                var chunk: [UInt8] = []
                swap(&chunk, &state.buffered)
                return .handOver(waiter.continuation, chunk)
            }
            let cap = state.readerCame ? limit : earlyLimit
            guard state.buffered.count >= cap, case .reading = state.state else { return .buffered(pause: false) }
            state.state = .paused
            return .buffered(pause: true)
        }
    }

    /// Reading ended (nil: the peer's clean end of stream) or failed; returns the waiting
    /// reader to resume with that.
    func finish(failure: LibUVError?) -> (waiter: Waiter, taken: Taken)? {
        shared.withLock { state in
            state.state = failure.map { .failed($0) } ?? .ended
            guard let waiter = state.waiter else { return nil }
            state.waiter = nil
            // Bytes held back for a larger read go out first; the end or failure comes next.
            return (waiter.continuation, Self.take(&state, atLeast: 1, limit: limit) ?? .end)
        }
    }

    /// Closed locally: buffered bytes are dropped and every read from now returns nil.
    /// Returns the waiting reader, to resume with nil.
    func close() -> Waiter? {
        shared.withLock { state in
            state.closed = true
            state.buffered = []
            defer { state.waiter = nil }
            return state.waiter?.continuation
        }
    }
}
