import Transport

/// The tests' `Sleeper`: Task.sleep, which also ends early when the task is cancelled, as
/// the event loop's timer-backed sleeper does. Protocol code under test takes a `Sleeper`,
/// so its timeouts run the same way here as on the loop.
public struct TaskSleeper: Sleeper {
    public init() {}

    public func sleep(milliseconds: UInt64) async throws {
        try await Task.sleep(nanoseconds: milliseconds * 1_000_000)
    }
}
