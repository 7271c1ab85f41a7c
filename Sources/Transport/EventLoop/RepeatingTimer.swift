import CLibUV

/// Work run on the loop thread every `interval` milliseconds until `cancel()` (or loop
/// shutdown), e.g. for idle-connection sweeps. Created by `EventLoop.scheduleRepeating`.
///
/// `@unchecked Sendable`: `cancel()` may be called from any thread but only forwards to
/// the loop; `handle` and `cancelled` are read and written on the loop thread only.
public final class RepeatingTimer: LoopResource, @unchecked Sendable {
    private let loop: EventLoop
    private let work: @Sendable () -> Void
    private var handle: UnsafeMutablePointer<uv_timer_t>?
    private var cancelled = false

    init(loop: EventLoop, work: @escaping @Sendable () -> Void) {
        self.loop = loop
        self.work = work
    }

    func start(interval: UInt64) {
        guard !cancelled, (try? loop.register(self)) != nil else { return }
        let timer = UVHandle.allocate(uv_timer_t.self)
        uvMust(uv_timer_init(loop.uvLoop, timer), "uv_timer_init")
        timer.pointee.data = Unmanaged.passRetained(self).toOpaque()
        handle = timer
        uv_update_time(loop.uvLoop)
        let rc = uv_timer_start(timer, { timer in
            Unmanaged<RepeatingTimer>.fromOpaque(timer!.pointee.data).takeUnretainedValue().work()
        }, interval, interval)
        // Only fails for a closing handle, which this one is not.
        uvMust(rc, "uv_timer_start")
    }

    /// Stops the timer; the work does not run again once the loop has processed this.
    public func cancel() {
        loop.execute { self.stop() }
    }

    func closeForShutdown() {
        stop()
    }

    private func stop() {
        cancelled = true
        guard let timer = handle else { return }
        handle = nil
        uv_close(UVHandle.base(timer)) { timer in
            let owner = Unmanaged<RepeatingTimer>.fromOpaque(timer!.pointee.data).takeRetainedValue()
            UVHandle.free(timer!)
            owner.loop.unregister(owner)
        }
    }
}
