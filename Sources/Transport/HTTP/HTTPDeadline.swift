/// Runs an operation with a time limit on a `Sleeper`. The operation runs in its own task
/// so the timer can cancel it; the connection code answers cancellation by closing its
/// stream, which ends any pending read, and the pool answers it by dropping the wait.
enum HTTPDeadline {
    static func run<Result: Sendable>(
        milliseconds: UInt64?, sleeper: any Sleeper,
        _ operation: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        guard let milliseconds else { return try await operation() }
        let work = Task { try await operation() }
        let timer = HTTPTimer(milliseconds: milliseconds, sleeper: sleeper) { work.cancel() }
        return try await withTaskCancellationHandler {
            do {
                let result = try await work.value
                timer.disarm()
                return result
            } catch {
                // Whatever error the cancelled operation surfaced, the cause was the clock.
                if timer.disarm() { throw HTTPError.timeout(milliseconds: milliseconds) }
                throw error
            }
        } onCancel: {
            work.cancel()
        }
    }
}
