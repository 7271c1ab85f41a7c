import Synchronization

/// The accepting side of a listener: connections accepted and not yet handed out, and the
/// one task waiting in `accept()`.
///
/// Why a lock and not the listener's actor: an accept loop runs in a task on the pool, and
/// an `accept()` isolated to the loop crossed to the loop and back for every connection,
/// even one already waiting. Here the task takes a waiting connection on its own thread,
/// and a task that must wait parks its continuation under the lock, for the loop's accept
/// callback to resume: one crossing, and only when it waited (docs/PERFORMANCE.md,
/// "Accepts without the loop, and the first bytes read at adoption"). The same shape as
/// `StreamInbox`, for connections instead of bytes.
///
/// Pure bookkeeping, no libuv: `UVListenerCore` calls `deliver` and `close` on the loop
/// thread and closes what `close` hands back.
final class AcceptQueue: Sendable {
    typealias Waiter = CheckedContinuation<(any UVStreamConnection)?, any Error>

    /// What `take` found.
    enum Next {
        case connection(any UVStreamConnection)
        /// The listener is closed: `accept()` returns nil.
        case closed
        /// Nothing yet: park with this token.
        case empty(token: Int)
    }

    private struct State {
        var ready: [any UVStreamConnection] = []
        var waiter: (token: Int, continuation: Waiter)?
        var nextToken = 0
        var closed = false
    }

    private let state = Mutex(State())
    /// The listener's type name, for misuse messages.
    private let name: String

    init(name: String) {
        self.name = name
    }

    // MARK: The accepting task's side (any thread)

    /// The oldest waiting connection, the end, or a token to park with.
    func take() -> Next {
        state.withLock { state in
            if !state.ready.isEmpty { return .connection(state.ready.removeFirst()) }
            if state.closed { return .closed }
            defer { state.nextToken += 1 }
            return .empty(token: state.nextToken)
        }
    }

    /// Parks `continuation` unless a connection or the close came since `take()`; then
    /// returns what came, for the caller to resume with.
    func park(token: Int, _ continuation: Waiter) -> Next? {
        state.withLock { state in
            if !state.ready.isEmpty { return .connection(state.ready.removeFirst()) }
            if state.closed { return .closed }
            precondition(state.waiter == nil, "\(name) supports one accept at a time")
            state.waiter = (token, continuation)
            return nil
        }
    }

    /// The waiting task with `token`, taken out so the caller can fail it with a
    /// cancellation; nil if it was resumed already.
    func cancel(token: Int) -> Waiter? {
        state.withLock { state in
            guard let waiter = state.waiter, waiter.token == token else { return nil }
            state.waiter = nil
            return waiter.continuation
        }
    }

    // MARK: The loop's side (loop thread)

    /// A connection accepted: the waiting task to resume with it, or nil once it is queued.
    /// False in `queued` when the queue is closed and the caller must close the connection.
    func deliver(_ connection: any UVStreamConnection) -> (waiter: Waiter?, queued: Bool) {
        state.withLock { state in
            if state.closed { return (nil, false) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter.continuation, true)
            }
            state.ready.append(connection)
            return (nil, true)
        }
    }

    /// Closed: the waiting task (to resume with nil) and the connections nobody took (to
    /// close). Every `take()` from now returns `.closed`.
    func close() -> (waiter: Waiter?, unclaimed: [any UVStreamConnection]) {
        state.withLock { state in
            state.closed = true
            let unclaimed = state.ready
            state.ready = []
            defer { state.waiter = nil }
            return (state.waiter?.continuation, unclaimed)
        }
    }
}
