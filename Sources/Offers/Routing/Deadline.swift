import Synchronization
import Transport

/// Runs an operation against a deadline: whichever ends first, the operation or the
/// sleeper's timer, gives the result; the loser is cancelled and left to finish on its
/// own, so a hung peer never holds up the caller.
enum Deadline {
    static func run<T: Sendable>(milliseconds: UInt64, sleeper: any Sleeper, onTimeout: T,
                                 _ operation: @escaping @Sendable () async -> T) async -> T {
        await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation)
            let work = Task {
                once.resume(with: await operation())
            }
            let timer = Task {
                do {
                    try await sleeper.sleep(milliseconds: milliseconds)
                } catch {
                    return
                }
                if once.resume(with: onTimeout) { work.cancel() }
            }
            Task {
                _ = await work.value
                timer.cancel()
            }
        }
    }
}

/// A continuation resumed by the first caller only.
private final class ResumeOnce<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, Never>?>

    init(_ continuation: CheckedContinuation<T, Never>) {
        self.continuation = Mutex(continuation)
    }

    /// True when this call resumed it.
    @discardableResult
    func resume(with value: T) -> Bool {
        let waiting = continuation.withLock { slot -> CheckedContinuation<T, Never>? in
            defer { slot = nil }
            return slot
        }
        waiting?.resume(returning: value)
        return waiting != nil
    }
}
