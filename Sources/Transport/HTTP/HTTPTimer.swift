import Synchronization

/// A one-shot timer on a `Sleeper` that runs an action unless disarmed first. Timeouts
/// work by closing the connection, because that is what unblocks a pending read on any
/// `ByteStream`; the caller then asks `disarm()` whether the timer was the cause.
///
/// The sleep runs in its own task, so finishing early never waits for the sleeper, even
/// one that ignores cancellation; a late wake-up finds the timer disarmed and does nothing.
final class HTTPTimer: Sendable {
    private enum Phase {
        case armed
        case fired
        case disarmed
    }

    private let phase = Mutex(Phase.armed)
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Starts the timer; nil milliseconds means no timeout (an inert timer).
    init(milliseconds: UInt64?, sleeper: any Sleeper, action: @escaping @Sendable () async -> Void) {
        guard let milliseconds else {
            phase.withLock { $0 = .disarmed }
            return
        }
        let sleeping = Task { [self] in
            do { try await sleeper.sleep(milliseconds: milliseconds) } catch { return }
            if self.markFired() { await action() }
        }
        task.withLock { $0 = sleeping }
    }

    private func markFired() -> Bool {
        phase.withLock { current -> Bool in
            guard case .armed = current else { return false }
            current = .fired
            return true
        }
    }

    /// Stops the timer; true if it had already fired.
    @discardableResult
    func disarm() -> Bool {
        let fired = phase.withLock { current -> Bool in
            if case .fired = current { return true }
            current = .disarmed
            return false
        }
        task.withLock { $0?.cancel() }
        return fired
    }

    var hasFired: Bool {
        phase.withLock { if case .fired = $0 { return true } else { return false } }
    }
}
