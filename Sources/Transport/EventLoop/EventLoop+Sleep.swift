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

    /// A `Sleeper` for protocol code that takes one as a parameter.
    public var sleeper: LoopSleeper { LoopSleeper(loop: self) }
}
