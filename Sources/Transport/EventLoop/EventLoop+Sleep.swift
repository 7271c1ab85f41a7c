extension EventLoop: Sleeper {
    /// Suspends for at least `milliseconds` on a loop timer, without holding a thread.
    /// Throws `CancellationError` if the task is cancelled (the timer is stopped and
    /// closed), `EventLoopError.shutDown` if the loop shuts down first.
    public func sleep(milliseconds: UInt64) async throws {
        try Task.checkCancellation()
        let timer = SleepTimer(loop: self)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                submit(failing: continuation) { timer.start(milliseconds: milliseconds, continuation) }
            }
        } onCancel: {
            execute { timer.cancel() }
        }
    }

    /// Runs `action` on the loop thread once, at least `milliseconds` from now, unless the
    /// alarm is disarmed first. All of the loop's alarms share one loop timer
    /// (`LoopAlarms`): no task each, and arming or disarming one does not, as a rule, wake
    /// the loop thread. `action` must not block.
    public func alarm(milliseconds: UInt64, _ action: @escaping @Sendable () -> Void) -> Alarm {
        let alarm = Alarm(action)
        alarms.arm(alarm, milliseconds: milliseconds)
        return alarm
    }

    /// Runs `work` on the loop thread every `milliseconds` (at least 1) until the returned
    /// timer is cancelled or the loop shuts down. `work` must not block.
    public func scheduleRepeating(
        everyMilliseconds milliseconds: UInt64, _ work: @escaping @Sendable () -> Void
    ) -> RepeatingTimer {
        let timer = RepeatingTimer(loop: self, work: work)
        let interval = max(1, milliseconds)
        execute { timer.start(interval: interval) }
        return timer
    }

    /// A `Sleeper` for protocol code that takes one as a parameter.
    public var sleeper: LoopSleeper { LoopSleeper(loop: self) }
}
