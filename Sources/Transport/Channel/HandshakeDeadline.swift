import Synchronization

/// A one-shot timer that closes a stream unless the handshake on it finishes first.
///
/// It does not rely on cancelling the sleep: a `Sleeper` may not honour cancellation, so
/// when the timer wakes it checks whether it still matters, and `finish()` tells the
/// handshake whether the timer got there first.
final class HandshakeDeadline: Sendable {
    private enum State { case running, fired, finished }
    private let state = Mutex(State.running)
    private let timer = Mutex<Task<Void, Never>?>(nil)

    init(milliseconds: UInt64, sleeper: any Sleeper, stream: any ByteStream) {
        let task = Task { [weak self] in
            do {
                try await sleeper.sleep(milliseconds: milliseconds)
            } catch {
                return
            }
            // Closing ends the handshake's pending read, which then reports the timeout.
            if self?.fire() == true { await stream.close() }
        }
        timer.withLock { $0 = task }
    }

    private func fire() -> Bool {
        state.withLock { current -> Bool in
            guard current == .running else { return false }
            current = .fired
            return true
        }
    }

    /// Stops the timer. False if it had already fired (the handshake must then fail).
    @discardableResult
    func finish() -> Bool {
        let finishedFirst = state.withLock { current -> Bool in
            if current == .running { current = .finished }
            return current == .finished
        }
        timer.withLock { $0?.cancel() }
        return finishedFirst
    }

    var hasFired: Bool { state.withLock { $0 == .fired } }
}
