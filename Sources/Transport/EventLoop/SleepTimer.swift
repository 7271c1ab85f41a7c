import CLibUV

/// One `uv_timer_t` behind one `EventLoop.sleep`. Lives on the loop thread: started,
/// fired, cancelled and closed there.
///
/// `@unchecked Sendable`: the cancellation handler captures it on another thread, but only
/// to pass it to `loop.execute`; every field is read and written on the loop thread.
final class SleepTimer: LoopResource, @unchecked Sendable {
    private let loop: EventLoop
    private var handle: UnsafeMutablePointer<uv_timer_t>?
    private var continuation: CheckedContinuation<Void, any Error>?
    private var cancelled = false

    init(loop: EventLoop) {
        self.loop = loop
    }

    func start(milliseconds: UInt64, _ continuation: CheckedContinuation<Void, any Error>) {
        // Cancellation raced ahead of the start: never arm the timer.
        if cancelled { return continuation.resume(throwing: CancellationError()) }
        do {
            try loop.register(self)
        } catch {
            return continuation.resume(throwing: error)
        }
        let timer = UVHandle.allocate(uv_timer_t.self)
        uvMust(uv_timer_init(loop.uvLoop, timer), "uv_timer_init")
        timer.pointee.data = Unmanaged.passRetained(self).toOpaque()
        handle = timer
        self.continuation = continuation
        // The loop's cached clock can lag behind real time after a long turn; refresh it
        // so the timer never fires before the requested interval. That clock counts whole
        // milliseconds (the current one already partly gone), so a timer of N fires after
        // N − 1 to N real milliseconds: one more keeps the promise of at least N.
        uv_update_time(loop.uvLoop)
        do {
            try uvCheck(uv_timer_start(timer, { timer in
                Unmanaged<SleepTimer>.fromOpaque(timer!.pointee.data).takeUnretainedValue()
                    .finish(.success(()))
            }, milliseconds > 0 && milliseconds < .max ? milliseconds + 1 : milliseconds, 0), "uv_timer_start")
        } catch {
            finish(.failure(error))
        }
    }

    /// From the task's cancellation handler, via the loop.
    func cancel() {
        cancelled = true
        finish(.failure(CancellationError()))
    }

    func closeForShutdown() {
        finish(.failure(EventLoopError.shutDown))
    }

    private func finish(_ result: Result<Void, any Error>) {
        guard let continuation else { return }
        self.continuation = nil
        if let timer = handle {
            handle = nil
            // Closing also stops the timer; the close callback frees it and drops the
            // handle's reference to this object.
            uv_close(UVHandle.base(timer)) { timer in
                let owner = Unmanaged<SleepTimer>.fromOpaque(timer!.pointee.data).takeRetainedValue()
                UVHandle.free(timer!)
                owner.loop.unregister(owner)
            }
        }
        continuation.resume(with: result)
    }
}
