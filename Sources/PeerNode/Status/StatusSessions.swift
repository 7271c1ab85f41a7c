import Synchronization

/// The dashboard's login sessions: a browser cannot put a bearer token on a page load or
/// on `EventSource`, so `POST /login` with the token trades it for a random session id in
/// an HttpOnly, SameSite=Strict cookie. Held in memory only (a restart logs everyone out),
/// each valid for `lifetimeSeconds` from its creation; at most `capacity` at once, the
/// oldest dropped first, so repeated logins cannot grow the table.
///
/// Session expiry is a convenience, not a fund deadline, so it reads the wall clock.
final class StatusSessions: Sendable {
    static let cookieName = "peernode_status"
    static let defaultLifetimeSeconds: Int64 = 15 * 60
    static let capacity = 64

    let lifetimeSeconds: Int64
    private let now: @Sendable () -> Int64
    /// Session id -> expiry (Unix seconds) and the order it was opened in (to drop the
    /// oldest first even among sessions opened in the same second).
    private let sessions = Mutex<(table: [String: (expiry: Int64, serial: UInt64)], next: UInt64)>(([:], 0))

    init(lifetimeSeconds: Int64 = StatusSessions.defaultLifetimeSeconds, now: @escaping @Sendable () -> Int64) {
        self.lifetimeSeconds = lifetimeSeconds
        self.now = now
    }

    /// A new session id (32 random bytes, hex).
    func open() -> String {
        let id = StatusToken.randomHex(byteCount: 32)
        let time = now()
        sessions.withLock { state in
            state.table = state.table.filter { $0.value.expiry > time }
            while state.table.count >= Self.capacity, let oldest = state.table.min(by: { $0.value.serial < $1.value.serial }) {
                state.table[oldest.key] = nil
            }
            state.table[id] = (time + lifetimeSeconds, state.next)
            state.next += 1
        }
        return id
    }

    /// Whether `id` is a live session. Compared against every held id in constant time per
    /// id, so the answer's timing does not tell how much of a guess was right.
    func isValid(_ id: String) -> Bool {
        let time = now()
        let candidate = Array(id.utf8)
        return sessions.withLock { state in
            var found = false
            for (held, entry) in state.table where entry.expiry > time {
                if StatusToken.constantTimeEqual(Array(held.utf8), candidate) { found = true }
            }
            return found
        }
    }

    /// Ends `id` (logout).
    func close(_ id: String) {
        _ = sessions.withLock { $0.table.removeValue(forKey: id) }
    }
}
