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
