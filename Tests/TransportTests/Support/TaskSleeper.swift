import Transport

/// The tests' Sleeper: Task.sleep, which also ends early when the task is cancelled,
/// as the event loop's timer-backed sleeper will.
struct TaskSleeper: Sleeper {
    func sleep(milliseconds: UInt64) async throws {
        try await Task.sleep(nanoseconds: milliseconds * 1_000_000)
    }
}
