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

/// The loop as a task executor too: a task started with `Task(executorPreference: loop)`
/// runs its code, and that of the pool actors it calls (a `SecureChannel`), on the loop
/// thread, so its reads and writes reach the loop-pinned streams without crossing
/// threads. That trades the loop thread's time for the hops: worth it for a bulk stream,
/// not for many connections doing cryptography at once (the pool spreads those over cores).
/// Nothing in the node uses it yet; `peernode-bench throughput` measures what it saves
/// (docs/PERFORMANCE.md). Its jobs arrive through the same `enqueue` and run like the
/// pinned actors' (`runSynchronously(on:)` the loop): one at a time, on the loop thread.
extension EventLoop: TaskExecutor {
    public func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }
}
