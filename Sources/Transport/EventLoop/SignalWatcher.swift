import CLibUV

/// Watches process signals (SIGINT, SIGTERM, ...) on the loop with uv_signal handles and
/// delivers each one to `signals`, for graceful shutdown. While a watcher is started,
/// libuv's handler replaces the signal's default action, so SIGTERM no longer kills the
/// process; `stop()` restores it.
///
///     let watcher = try await SignalWatcher.start(watching: [SIGINT, SIGTERM], loop: loop)
///     for await signal in watcher.signals { ...; break }
///
/// `@unchecked Sendable`: `signals` and its continuation are Sendable; every other field
/// is read and written on the loop thread only.
public final class SignalWatcher: LoopResource, @unchecked Sendable {
    /// Each delivered signal number, in order. Finishes when the watcher stops (or the
    /// loop shuts down). Iterate it from one task.
    public let signals: AsyncStream<Int32>
    private let sink: AsyncStream<Int32>.Continuation
    private let loop: EventLoop
    private let watched: [Int32]
    private var handles: [UnsafeMutablePointer<uv_signal_t>] = []
    private var openHandles = 0
    private var stopping = false
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []

    private init(loop: EventLoop, watched: [Int32]) {
        self.loop = loop
        self.watched = watched
        (signals, sink) = AsyncStream.makeStream(of: Int32.self, bufferingPolicy: .bufferingNewest(64))
    }

    /// Starts watching; when this returns the handlers are installed.
    public static func start(watching signals: [Int32], loop: EventLoop) async throws -> SignalWatcher {
        let watcher = SignalWatcher(loop: loop, watched: signals)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            loop.submit(failing: continuation) {
                continuation.resume(with: Result { try watcher.install() })
            }
        }
        return watcher
    }

    private func install() throws {
        try loop.register(self)
        for signal in watched {
            let handle = UVHandle.allocate(uv_signal_t.self)
            do {
                try uvCheck(uv_signal_init(loop.uvLoop, handle), "uv_signal_init")
            } catch {
                UVHandle.free(handle)
                beginStop()
                throw error
            }
            handle.pointee.data = Unmanaged.passRetained(self).toOpaque()
            handles.append(handle)
            openHandles += 1
            do {
                try uvCheck(uv_signal_start(handle, { handle, signal in
                    Unmanaged<SignalWatcher>.fromOpaque(handle!.pointee.data).takeUnretainedValue()
                        .sink.yield(signal)
                }, signal), "uv_signal_start")
            } catch {
                beginStop()
                throw error
            }
        }
    }

    /// Stops watching, restores the default actions and ends `signals`.
    public func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let queued = loop.submit(.closure {
                self.stopWaiters.append(continuation)
                self.beginStop()
            })
            // A stopped loop closed every handle already.
            if !queued { continuation.resume() }
        }
    }

    func closeForShutdown() {
        beginStop()
    }

    private func beginStop() {
        if !stopping {
            stopping = true
            sink.finish()
            for handle in handles {
                uv_close(UVHandle.base(handle)) { handle in
                    let watcher = Unmanaged<SignalWatcher>.fromOpaque(handle!.pointee.data).takeRetainedValue()
                    UVHandle.free(handle!)
                    watcher.openHandles -= 1
                    if watcher.openHandles == 0 { watcher.didStop() }
                }
            }
            handles = []
        }
        if openHandles == 0 { didStop() }
    }

    private func didStop() {
        loop.unregister(self)
        let waiters = stopWaiters
        stopWaiters = []
        for waiter in waiters { waiter.resume() }
    }
}
