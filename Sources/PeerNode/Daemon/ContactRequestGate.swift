import Transport

/// At most `limit` of this node's one-off requests (an address, an invoice) open to one
/// contact at a time; the rest wait their turn.
///
/// Why: a node serves at most 4 connections per pubky (`PeerLimits.maxConnectionsPerPubky`)
/// and evicts the oldest for a fifth. Each one-off request dials its own connection, so five
/// `pay`s to one contact at once would have the contact close one of them mid-request
/// (seen in the `single-coin-5` scenario: "did not answer with its address: the connection
/// is closed"). Two at a time leave room for the provider link and the probe this node may
/// also hold to the same contact.
actor ContactRequestGate {
    static let defaultLimit = 2

    private let limit: Int
    private var running: [Pubky: Int] = [:]
    private var waiting: [Pubky: [CheckedContinuation<Void, Never>]] = [:]

    init(limit: Int = ContactRequestGate.defaultLimit) {
        self.limit = max(1, limit)
    }

    /// Runs `body` once fewer than `limit` requests to `pubky` are open.
    func run<T: Sendable, E: Error>(to pubky: Pubky, _ body: @Sendable () async throws(E) -> T) async throws(E) -> T {
        await enter(pubky)
        defer { leave(pubky) }
        return try await body()
    }

    /// Requests open to `pubky` now (for tests).
    func openCount(to pubky: Pubky) -> Int { running[pubky, default: 0] }

    private func enter(_ pubky: Pubky) async {
        if running[pubky, default: 0] < limit {
            running[pubky, default: 0] += 1
            return
        }
        // The slot is handed over by `leave`, so the count stays as it is.
        await withCheckedContinuation { waiting[pubky, default: []].append($0) }
    }

    private func leave(_ pubky: Pubky) {
        if var queue = waiting[pubky], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[pubky] = queue.isEmpty ? nil : queue
            next.resume()
            return
        }
        let left = running[pubky, default: 1] - 1
        running[pubky] = left > 0 ? left : nil
    }
}
