import CLibUV
import Glibc

/// The machinery every libuv stream connection (`uv_stream_t`: TCP and unix pipes) shares,
/// wrapped by `TCPConnection` and `PipeConnection`, which add only how they connect. Its
/// libuv calls run on its loop's thread (its executor is the loop); `read()` and `write`
/// are nonisolated and run on the caller's thread, meeting the loop through `StreamInbox`
/// and `StreamOutbox`, so a connection's reader and writer cost no hop to the loop and back.
///
/// - Reads: from the moment the handle is adopted, bytes are read ahead until
///   `readBufferLimit` bytes wait unread (about one read's worth before the first
///   `read()`); then reading stops (the kernel's window closes and the peer slows down)
///   and resumes once `read()` drains them. `read()` returns everything buffered.
/// - End of stream: a clean close by the peer (EOF) makes `read()` return nil, after any
///   bytes still buffered. A reset or other read error makes `read()` throw `LibUVError`
///   (call `uv_read`, e.g. code ECONNRESET) — then, and on every later read, so the
///   failure is never mistaken for a clean end.
/// - Writes: `write` returns once the kernel has taken the bytes. A write after `close()`
///   or after the peer went away (EPIPE, ECONNRESET) throws `ByteStreamError.closed`.
///   Cancelling a task while its write is in flight closes the connection, since a
///   half-sent message cannot be taken back.
/// - A cancelled `read()` throws `CancellationError` and loses no bytes.
///
/// The handle's `data` holds a retained reference to the core until the close callback,
/// which frees the handle and drops it.
actor UVStreamCore {
    nonisolated let loop: EventLoop

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        loop.asUnownedSerialExecutor()
    }

    private let confinedStream: LoopConfined<UnsafeMutablePointer<uv_stream_t>>
    private var stream: UnsafeMutablePointer<uv_stream_t> { confinedStream.value }
    /// The wrapper's type name, for misuse messages.
    private let name: String
    private let onClosed: (@Sendable () -> Void)?
    /// The read side, shared with readers on other threads (see `StreamInbox` for why).
    private nonisolated let inbox: StreamInbox
    private var lifecycle = HandleLifecycle()
    /// The write side, shared with writers on other threads (see `StreamOutbox`).
    private nonisolated let outbox: StreamOutbox
    /// Queued writes whose turn has not come: a writer's submission can reach the loop
    /// before that of a writer whose ticket is earlier.
    private var parkedWrites: [Int: QueuedWrite] = [:]
    private var nextTicket = 0
    private var shutdownWaiter: CheckedContinuation<Void, any Error>?

    private init(
        stream: LoopConfined<UnsafeMutablePointer<uv_stream_t>>, loop: EventLoop, name: String,
        readBufferLimit: Int, onClosed: (@Sendable () -> Void)?
    ) {
        self.confinedStream = stream
        self.loop = loop
        self.name = name
        self.inbox = StreamInbox(limit: readBufferLimit)
        var descriptor: uv_os_fd_t = -1
        let known = uv_fileno(UVHandle.base(stream.value), &descriptor) == 0
        self.outbox = StreamOutbox(descriptor: known ? descriptor : nil)
        self.onClosed = onClosed
    }

    /// Takes over a connected or accepted handle (whose `data` is unset). Loop thread only.
    /// On failure the handle is closed and freed.
    static func adopt(
        _ stream: UnsafeMutablePointer<uv_stream_t>, loop: EventLoop, name: String, readBufferLimit: Int,
        onClosed: (@Sendable () -> Void)?
    ) throws(EventLoopError) -> UVStreamCore {
        let core = UVStreamCore(
            stream: LoopConfined(stream), loop: loop, name: name, readBufferLimit: max(1, readBufferLimit),
            onClosed: onClosed)
        do {
            try loop.register(core)
        } catch {
            UVHandle.closeAndFree(stream)
            throw error
        }
        // The handle keeps its owner alive until the close callback releases it.
        stream.pointee.data = Unmanaged.passRetained(core).toOpaque()
        // Reading starts here, on the loop thread that connected or accepted the handle.
        // The peer's first bytes (a handshake message, a reply) then wait in the inbox when
        // the first `read()` comes, and it takes them on its own thread; a start left to
        // that read cost two thread wake-ups per connection, the loop's to start reading
        // and the reader's to get the bytes (docs/PERFORMANCE.md, "Reading from the start"
        // in the fifth session's section). Until its first read a connection holds about
        // one read's worth at most (`StreamInbox.earlyLimit`), then up to `readBufferLimit`.
        core.assumeIsolated {
            $0.startReading()
            $0.readWhatWaits()
        }
        return core
    }

    /// Loop thread, at adoption: takes what the peer has sent already (the dialler's first
    /// handshake message is often in the socket by the time the loop accepts it), so the
    /// first `read()` finds it instead of waiting for the loop's next turn and a wake-up.
    /// Nothing, the end or a failure is left to libuv's reads, which come after this one.
    private func readWhatWaits() {
        var descriptor: uv_os_fd_t = -1
        guard uv_fileno(UVHandle.base(stream), &descriptor) == 0 else { return }
        var buffer = Self.readBuffer(of: loop, for: inbox)
        let count = recv(descriptor, buffer.base, Int(buffer.len), Int32(MSG_DONTWAIT))
        guard count > 0 else { return }
        didRead(count: count, buffer: &buffer)
    }

    /// Where the next read of a stream on `loop` lands: every connection on a loop reads
    /// into the loop's one buffer (the read callback copies the bytes out before the next
    /// read), as much as the stream's inbox takes at once.
    private static func readBuffer(of loop: EventLoop, for inbox: StreamInbox) -> uv_buf_t {
        uv_buf_init(loop.readBuffer.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(inbox.readSize))
    }

    /// The core that owns a stream handle. Loop thread only.
    static func owner(of stream: UnsafeMutablePointer<uv_stream_t>) -> UVStreamCore {
        Unmanaged<UVStreamCore>.fromOpaque(stream.pointee.data).takeUnretainedValue()
    }

    // MARK: Reading

    /// Nonisolated: it takes buffered bytes on the caller's thread, and a reader that must
    /// wait is resumed by the loop's read callback straight back onto the pool, never
    /// through this actor.
    nonisolated func read(atLeast wanted: Int = 1) async throws -> [UInt8]? {
        let (taken, token, start) = inbox.take(atLeast: wanted)
        if start { requestReading() }
        if let taken { return try taken.result() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // A cancellation that came first has queued nothing that would find us.
                if Task.isCancelled { return continuation.resume(throwing: CancellationError()) }
                let (parked, start) = inbox.wait(token: token, atLeast: wanted, continuation)
                if start { requestReading() }
                switch parked {
                case .ready(let taken):
                    continuation.resume(with: Result { try taken.result() })
                case .parked:
                    // A cancellation between the check above and parking found no waiter.
                    if Task.isCancelled { inbox.cancel(token: token)?.resume(throwing: CancellationError()) }
                }
            }
        } onCancel: {
            inbox.cancel(token: token)?.resume(throwing: CancellationError())
        }
    }

    /// Bytes read ahead and not yet returned by `read()`.
    nonisolated var bufferedByteCount: Int { inbox.bufferedByteCount }

    /// True while reading is stopped because `readBufferLimit` bytes wait unread.
    nonisolated var isReadingPaused: Bool { inbox.isPaused }

    /// Asks the loop to start reading (first read, or the read that drained a paused
    /// buffer). A loop already shut down has closed the inbox, so no reader waits on it.
    private nonisolated func requestReading() {
        loop.execute { self.assumeIsolated { $0.startReading() } }
    }

    private func startReading() {
        guard inbox.startReading() else { return }
        let rc = uv_read_start(stream, { handle, _, buffer in
            let owner = UVStreamCore.owner(of: UVHandle.stream(handle!))
            buffer!.pointee = UVStreamCore.readBuffer(of: owner.loop, for: owner.inbox)
        }, { stream, count, buffer in
            let buffer = LoopConfined(buffer)
            UVStreamCore.owner(of: stream!).assumeIsolated { $0.didRead(count: count, buffer: buffer.value) }
        })
        if case .failure(let error) = uvResult(rc, "uv_read_start") { finishReading(failure: error) }
    }

    private func didRead(count: Int, buffer: UnsafePointer<uv_buf_t>?) {
        if count > 0 {
            let bytes = UnsafeRawBufferPointer(start: buffer!.pointee.base, count: count)
            switch inbox.deliver(bytes) {
            case .handOver(let waiter, let chunk): waiter.resume(returning: chunk)
            case .buffered(let pause): if pause { uvMust(uv_read_stop(stream), "uv_read_stop") }
            case .dropped: break
            }
        } else if count < 0 {
            uvMust(uv_read_stop(stream), "uv_read_stop")
            // EOF is a clean end; anything else (ECONNRESET, ...) is a failure.
            if count == Int(UV_EOF.rawValue) {
                finishReading(failure: nil)
            } else {
                guard case .failure(let error) = uvResult(Int32(truncatingIfNeeded: count), "uv_read") else { return }
                finishReading(failure: error)
            }
        }
        // count == 0: libuv's EAGAIN, nothing arrived.
    }

    /// The end of reading (nil: the peer's clean end): a waiting reader gets what was held
    /// back for it, or else the end or the error.
    private func finishReading(failure: LibUVError?) {
        guard let (waiter, taken) = inbox.finish(failure: failure) else { return }
        waiter.resume(with: Result { try taken.result() })
    }

    // MARK: Writing

    /// Nonisolated: a write the kernel takes whole is made on the caller's thread
    /// (`StreamOutbox`); only the rest, or a write behind it, goes through the loop.
    nonisolated func write(_ bytes: [UInt8]) async throws {
        guard !bytes.isEmpty else { return }
        let attempt: StreamOutbox.Attempt
        do {
            attempt = try outbox.writeNow(bytes)
        } catch {
            throw Self.writeFailure(error)
        }
        guard case .queue(let sent, let ticket) = attempt else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let write = QueuedWrite(bytes: bytes, sent: sent, ticket: ticket, continuation: continuation)
                // A loop already shut down has closed the stream: the write fails as closed.
                if !loop.submit(.closure { self.assumeIsolated { $0.enqueue(write) } }) {
                    outbox.finished()
                    continuation.resume(throwing: ByteStreamError.closed)
                }
            }
        } onCancel: {
            loop.execute { self.assumeIsolated { $0.beginClose() } }
        }
    }

    /// Starts queued writes in ticket order.
    private func enqueue(_ write: QueuedWrite) {
        guard lifecycle.isOpen else { return fail(write) }
        parkedWrites[write.ticket] = write
        while let next = parkedWrites.removeValue(forKey: nextTicket) {
            nextTicket += 1
            let request = UVWriteRequest(copying: next.bytes[next.sent...])
            request.continuation = next.continuation
            do {
                try request.start(on: stream)
            } catch {
                outbox.finished()
                request.continuation = nil
                next.continuation.resume(throwing: Self.writeFailure(error))
            }
        }
    }

    private func fail(_ write: QueuedWrite) {
        outbox.finished()
        write.continuation.resume(throwing: ByteStreamError.closed)
    }

    func writeFinished(_ continuation: CheckedContinuation<Void, any Error>?, status: Int32) {
        outbox.finished()
        guard let continuation else { return }
        continuation.resume(with: uvResult(status, "uv_write").mapError(Self.writeFailure))
    }

    /// The peer went away or we closed: that is `ByteStreamError.closed` by the
    /// `ByteStream` contract. Anything else stays a named libuv error.
    private static func writeFailure(_ error: any Error) -> any Error {
        let gone = [UV_EPIPE, UV_ECONNRESET, UV_ECANCELED, UV_ENOTCONN, UV_EBADF].map(\.rawValue)
        guard let failure = error as? LibUVError, gone.contains(failure.code) else { return error }
        return ByteStreamError.closed
    }

    /// Half-close: sends FIN once queued writes are out; reading continues. The peer's
    /// `read()` then returns nil.
    func shutdownWrite() async throws {
        guard lifecycle.isOpen else { throw ByteStreamError.closed }
        precondition(shutdownWaiter == nil, "shutdownWrite() already in progress")
        let request = UVHandle.allocate(uv_shutdown_t.self)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let rc = uv_shutdown(request, stream) { request, status in
                let core = UVStreamCore.owner(of: request!.pointee.handle)
                UVHandle.free(request!)
                core.assumeIsolated { $0.didShutdownWrite(status: status) }
            }
            do {
                try uvCheck(rc, "uv_shutdown")
                shutdownWaiter = continuation
            } catch {
                UVHandle.free(request)
                continuation.resume(throwing: Self.writeFailure(error))
            }
        }
    }

    private func didShutdownWrite(status: Int32) {
        guard let waiter = shutdownWaiter else { return }
        shutdownWaiter = nil
        waiter.resume(with: uvResult(status, "uv_shutdown").mapError(Self.writeFailure))
    }

    // MARK: Closing

    /// Closes both directions and returns once libuv has released the handle. A pending
    /// read returns nil; queued writes fail with `ByteStreamError.closed`.
    ///
    /// Nonisolated: from a pool thread, the close crosses to the loop once and the close
    /// callback resumes the caller where it waits. As an actor method it crossed twice,
    /// the second time only to return from this method after the callback had resumed the
    /// task on the pool (docs/PERFORMANCE.md, "`close()` without the actor" in the sixth session's section).
    nonisolated func close() async {
        await withCheckedContinuation { (closed: CheckedContinuation<Void, Never>) in
            let work: @Sendable () -> Void = { self.assumeIsolated { $0.close(resuming: closed) } }
            if loop.inEventLoop {
                work()
            } else if !loop.submit(.closure(work)) {
                // The loop no longer takes closures once shutdown has closed every handle.
                closed.resume()
            }
        }
    }

    private func close(resuming closed: CheckedContinuation<Void, Never>) {
        if lifecycle.isClosed { return closed.resume() }
        beginClose()  // does nothing while already closing
        lifecycle.waitForClose(closed)
    }

    func beginClose() {
        guard lifecycle.beginClosing() else { return }
        outbox.close()
        inbox.close()?.resume(returning: nil)
        let parked = parkedWrites.values
        parkedWrites = [:]
        for write in parked { fail(write) }
        // libuv fails queued writes and the shutdown request with ECANCELED first, then
        // calls this close callback, which frees the handle and drops its reference.
        uv_close(UVHandle.base(stream)) { handle in
            let core = Unmanaged<UVStreamCore>.fromOpaque(handle!.pointee.data).takeRetainedValue()
            UVHandle.free(handle!)
            core.assumeIsolated { $0.didClose() }
        }
    }

    private func didClose() {
        lifecycle.didClose()
        loop.unregister(self)
        onClosed?()
    }
}

extension UVStreamCore: LoopResource {
    nonisolated func closeForShutdown() {
        assumeIsolated { $0.beginClose() }
    }
}

/// A write waiting for the loop: the bytes from `sent` on, in the order of `ticket`.
private struct QueuedWrite: Sendable {
    let bytes: [UInt8]
    let sent: Int
    let ticket: Int
    let continuation: CheckedContinuation<Void, any Error>
}
