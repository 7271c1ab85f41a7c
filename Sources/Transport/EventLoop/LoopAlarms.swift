import CLibUV
import Synchronization

/// Every `Alarm` of one loop behind one `uv_timer_t`. Arming takes the lock and, in the
/// common case, nothing else: the loop is woken only when the new alarm is due before the
/// loop timer is set to fire (or no timer is set). Disarming only marks the alarm. When
/// the loop timer fires, the loop runs what is due and sets the timer for the earliest
/// alarm left, so an alarm disarmed early costs at most one wake-up at its due time.
///
/// Why: a request's timeout is armed and disarmed for every request, mostly within a
/// millisecond; as a sleeping task with its own loop timer, it crossed to the loop thread
/// to start the timer and again to stop it, and started a task (docs/PERFORMANCE.md).
///
/// `@unchecked Sendable`: `state` is a Mutex; `timer` is touched on the loop thread only.
final class LoopAlarms: LoopResource, @unchecked Sendable {
    private struct State {
        var queue = AlarmQueue()
        /// When the loop timer will fire; nil when it is not running.
        var timerDue: UInt64?
        /// A `rearm` is queued on the loop: it reads the queue when it runs.
        var rearmQueued = false
        var closed = false
        /// How many times arming had to wake the loop (what the tests hold down).
        var loopWakeups = 0
    }

    private let state = Mutex(State())
    private unowned let loop: EventLoop
    private var timer: UnsafeMutablePointer<uv_timer_t>?

    init(loop: EventLoop) {
        self.loop = loop
    }

    /// Arms `alarm` to fire `milliseconds` from now (monotonic clock), from any thread. On
    /// a loop shut down, it never fires, as a sleep there never ends.
    func arm(_ alarm: Alarm, milliseconds: UInt64) {
        let now = MonotonicClock.milliseconds()
        let (sum, overflow) = now.addingReportingOverflow(milliseconds)
        let due = overflow ? UInt64.max : sum
        let wakeLoop = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.queue.insert(alarm, due: due)
            if let timerDue = state.timerDue, timerDue <= due { return false }
            if state.rearmQueued { return false }
            state.rearmQueued = true
            state.loopWakeups += 1
            return true
        }
        if wakeLoop { loop.execute { [self] in rearm() } }
    }

    var loopWakeups: Int { state.withLock { $0.loopWakeups } }

    /// Loop thread: sets the timer for the earliest armed alarm.
    private func rearm() {
        let due = state.withLock { state -> UInt64? in
            state.rearmQueued = false
            guard !state.closed else { return nil }
            state.timerDue = state.queue.earliestDue()
            return state.timerDue
        }
        setTimer(due)
    }

    /// Loop thread: the timer fired; runs what is due, then sets it for what is left.
    private func timerFired() {
        let now = MonotonicClock.milliseconds()
        let (due, next) = state.withLock { state -> ([Alarm], UInt64?) in
            let due = state.queue.takeDue(at: now)
            state.timerDue = state.closed ? nil : state.queue.earliestDue()
            return (due, state.timerDue)
        }
        setTimer(next)
        for alarm in due { alarm.fire() }
    }

    private func setTimer(_ due: UInt64?) {
        guard let due else {
            if let timer { uv_timer_stop(timer) }
            return
        }
        if timer == nil {
            do {
                try loop.register(self)
            } catch {
                return
            }
            let created = UVHandle.allocate(uv_timer_t.self)
            uvMust(uv_timer_init(loop.uvLoop, created), "uv_timer_init")
            created.pointee.data = Unmanaged.passUnretained(self).toOpaque()
            timer = created
        }
        // The loop's cached clock can lag; refreshed, and one more millisecond for its
        // rounding, the timer never fires before `due` (timerFired checks again anyway).
        uv_update_time(loop.uvLoop)
        let now = MonotonicClock.milliseconds()
        let wait = due > now ? min(due - now, UInt64.max - 1) + 1 : 0
        uvMust(uv_timer_start(timer, { timer in
            Unmanaged<LoopAlarms>.fromOpaque(timer!.pointee.data).takeUnretainedValue().timerFired()
        }, wait, 0), "uv_timer_start")
    }

    func closeForShutdown() {
        state.withLock { state in
            state.closed = true
            state.timerDue = nil
        }
        guard let closing = timer else { return }
        timer = nil
        uv_close(UVHandle.base(closing)) { handle in
            let owner = Unmanaged<LoopAlarms>.fromOpaque(handle!.pointee.data).takeUnretainedValue()
            UVHandle.free(handle!)
            owner.loop.unregister(owner)
        }
    }
}
