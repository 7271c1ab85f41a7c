/// The loop as a Swift concurrency executor. An actor pins itself to a loop with
///
///     nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
///
/// and then its methods run on the loop thread, where they may call libuv directly.
/// The executor reference is unowned: such an actor must keep its loop alive (store it).
extension EventLoop: SerialExecutor {
    public func enqueue(_ job: consuming ExecutorJob) {
        // Never dropped: after shutdown, jobs still run serially (see `submit`), so a
        // task pinned to the loop that shutdown resumed can finish.
        submit(.job(UnownedJob(job)))
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets `assumeIsolated` succeed in libuv callbacks, which run on the loop thread but
    /// outside any job.
    public func checkIsolated() {
        precondition(inEventLoop, "expected to run on the event loop thread")
    }
}
