import CLibUV

/// The machinery every libuv stream connection (`uv_stream_t`: TCP and unix pipes) shares,
/// wrapped by `TCPConnection` and `PipeConnection`, which add only how they connect. It
/// runs on its loop's thread (its executor is the loop), like its wrapper.
///
/// - Reads: bytes are read ahead until `readBufferLimit` bytes wait unread; then reading
///   stops (the kernel's window closes and the peer slows down) and resumes once `read()`
///   drains them. `read()` returns everything buffered.
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

    private enum ReadState {
        case idle
        case reading
        case paused
        case ended
        case failed(LibUVError)
    }

    private let confinedStream: LoopConfined<UnsafeMutablePointer<uv_stream_t>>
    private var stream: UnsafeMutablePointer<uv_stream_t> { confinedStream.value }
    /// The wrapper's type name, for misuse messages.
    private let name: String
    private let readBufferLimit: Int
    private let onClosed: (@Sendable () -> Void)?
    private var buffered: [UInt8] = []
    private var readState = ReadState.idle
    private var readWaiter: (token: Int, continuation: CheckedContinuation<[UInt8]?, any Error>)?
    private var nextReadToken = 0
    private var lifecycle = HandleLifecycle()
    private var writesInFlight = 0
    private var shutdownWaiter: CheckedContinuation<Void, any Error>?

    private init(
        stream: LoopConfined<UnsafeMutablePointer<uv_stream_t>>, loop: EventLoop, name: String,
        readBufferLimit: Int, onClosed: (@Sendable () -> Void)?
    ) {
        self.confinedStream = stream
        self.loop = loop
        self.name = name
        self.readBufferLimit = readBufferLimit
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
        return core
    }

    /// The core that owns a stream handle. Loop thread only.
    static func owner(of stream: UnsafeMutablePointer<uv_stream_t>) -> UVStreamCore {
        Unmanaged<UVStreamCore>.fromOpaque(stream.pointee.data).takeUnretainedValue()
    }

    // MARK: Reading

    func read() async throws -> [UInt8]? {
        guard lifecycle.isOpen else { return nil }
        if !buffered.isEmpty {
            var chunk: [UInt8] = []
            swap(&chunk, &buffered)
            if case .paused = readState { resumeReading() }
            return chunk
        }
        switch readState {
        case .ended: return nil
        case .failed(let error): throw error
        case .idle, .paused:
            resumeReading()
            if case .failed(let error) = readState { throw error }
        case .reading: break
        }
        precondition(readWaiter == nil, "\(name) supports one reader at a time")
        let token = nextReadToken
        nextReadToken += 1
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // A cancellation that came first has queued nothing that would find us.
                if Task.isCancelled { return continuation.resume(throwing: CancellationError()) }
                readWaiter = (token, continuation)
            }
        } onCancel: {
            loop.execute { self.assumeIsolated { $0.cancelRead(token: token) } }
        }
    }

    /// Bytes read ahead and not yet returned by `read()`.
    var bufferedByteCount: Int { buffered.count }

    /// True while reading is stopped because `readBufferLimit` bytes wait unread.
    var isReadingPaused: Bool {
        if case .paused = readState { return true }
        return false
    }

    private func resumeReading() {
        let rc = uv_read_start(stream, { handle, _, buffer in
            // Every connection on a loop reads into the loop's one buffer; the read
            // callback copies the bytes out before libuv asks for the buffer again.
            let loop = UVHandle.eventLoop(of: UVHandle.base(handle!))
            buffer!.pointee = uv_buf_init(
                loop.readBuffer.baseAddress!.assumingMemoryBound(to: CChar.self),
                UInt32(EventLoop.readBufferSize))
        }, { stream, count, buffer in
            let buffer = LoopConfined(buffer)
            UVStreamCore.owner(of: stream!).assumeIsolated { $0.didRead(count: count, buffer: buffer.value) }
        })
        do {
            try uvCheck(rc, "uv_read_start")
            readState = .reading
        } catch {
            readState = .failed(error)
        }
    }

    private func pauseReading() {
        uvMust(uv_read_stop(stream), "uv_read_stop")
    }

    private func didRead(count: Int, buffer: UnsafePointer<uv_buf_t>?) {
        if count > 0 {
            let bytes = UnsafeRawBufferPointer(start: buffer!.pointee.base, count: count)
            if let waiter = readWaiter {
                // A reader waits only while nothing is buffered, so order is kept.
                readWaiter = nil
                return waiter.continuation.resume(returning: Array(bytes))
            }
            buffered.append(contentsOf: bytes)
            if buffered.count >= readBufferLimit {
                pauseReading()
                readState = .paused
            }
        } else if count < 0 {
            pauseReading()
            // EOF is a clean end; anything else (ECONNRESET, ...) is a failure.
            if count == Int(UV_EOF.rawValue) {
                readState = .ended
                if let waiter = readWaiter {
                    readWaiter = nil
                    waiter.continuation.resume(returning: nil)
                }
            } else {
                guard case .failure(let error) = uvResult(Int32(truncatingIfNeeded: count), "uv_read") else { return }
                readState = .failed(error)
                if let waiter = readWaiter {
                    readWaiter = nil
                    waiter.continuation.resume(throwing: error)
                }
            }
        }
        // count == 0: libuv's EAGAIN, nothing arrived.
    }

    private func cancelRead(token: Int) {
        guard let waiter = readWaiter, waiter.token == token else { return }
        readWaiter = nil
        waiter.continuation.resume(throwing: CancellationError())
    }

    // MARK: Writing

    func write(_ bytes: [UInt8]) async throws {
        guard !bytes.isEmpty else { return }
        guard lifecycle.isOpen else { throw ByteStreamError.closed }
        var sent = 0
        // Fast path: with nothing queued, hand the bytes to the kernel now, with no copy
        // and no callback. libuv refuses (EAGAIN) while earlier writes are queued.
        if writesInFlight == 0 {
            let rc = bytes.withUnsafeBytes { raw in
                var buffer = uv_buf_init(
                    UnsafeMutablePointer(mutating: raw.baseAddress!.assumingMemoryBound(to: CChar.self)),
                    UInt32(raw.count))
                return uv_try_write(stream, &buffer, 1)
            }
            if rc != UV_EAGAIN.rawValue {
                do {
                    sent = Int(try uvCheck(rc, "uv_try_write"))
                } catch {
                    throw Self.writeFailure(error)
                }
                if sent == bytes.count { return }
            }
        }
        let request = UVWriteRequest(copying: bytes[sent...])
        writesInFlight += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                request.continuation = continuation
                do {
                    try request.start(on: stream)
                } catch {
                    writesInFlight -= 1
                    request.continuation = nil
                    continuation.resume(throwing: Self.writeFailure(error))
                }
            }
        } onCancel: {
            loop.execute { self.assumeIsolated { $0.beginClose() } }
        }
    }

    func writeFinished(_ continuation: CheckedContinuation<Void, any Error>?, status: Int32) {
        writesInFlight -= 1
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
    func close() async {
        if lifecycle.isClosed { return }
        beginClose()  // does nothing while already closing
        await withCheckedContinuation { lifecycle.waitForClose($0) }
    }

    func beginClose() {
        guard lifecycle.beginClosing() else { return }
        buffered = []
        if let waiter = readWaiter {
            readWaiter = nil
            waiter.continuation.resume(returning: nil)
        }
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
