import Synchronization
import Transport

/// The lines of a subscription, failing with `.unreachable` when the first one has not
/// come within a deadline. LND sends an invoice's current state as soon as it subscribes
/// a known invoice, but keeps a subscription to an unknown one open with nothing on it:
/// without a deadline the caller would wait for ever instead of looking the invoice up.
struct LNDFirstLineDeadline {
    /// Set once the first line arrived.
    private final class Seen: Sendable {
        private let value = Mutex(false)
        func set() { value.withLock { $0 = true } }
        var isSet: Bool { value.withLock { $0 } }
    }

    static func lines(_ lines: HTTPLineSequence, milliseconds: UInt64, sleeper: any Sleeper,
                      url: String) -> AsyncThrowingStream<[UInt8], any Error> {
        let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let seen = Seen()
        let pump = Task {
            do {
                for try await line in lines {
                    seen.set()
                    continuation.yield(line)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        let watchdog = Task {
            do { try await sleeper.sleep(milliseconds: milliseconds) } catch { return }
            guard !seen.isSet else { return }
            continuation.finish(throwing: LightningBackendError.unreachable(
                url: url, reason: "the subscription sent nothing within \(milliseconds) ms (LND keeps one to an unknown "
                    + "invoice open and silent)"))
        }
        continuation.onTermination = { _ in
            pump.cancel()
            watchdog.cancel()
        }
        return stream
    }
}
