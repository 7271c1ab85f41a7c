import Transport

/// Per-peer budget of log lines that a peer's own messages cause (pushes for unknown
/// swaps, refused requests): at most `perWindow` lines a peer in each `windowSeconds`;
/// the rest are counted and summed up in one "N lines dropped" line when the window turns,
/// so a flood from one peer cannot fill the disk nor bury the other lines (issue 22).
struct LogThrottle: Sendable {
    let perWindow: Int
    let windowSeconds: UInt64
    /// At most this many peers are tracked; a flood of fresh identities shares one budget.
    let maxPeers: Int
    private var windowStart: UInt64 = 0
    private var written: [Pubky: Int] = [:]
    private var dropped: [Pubky: Int] = [:]
    private var overflowWritten = 0

    init(perWindow: Int = 10, windowSeconds: UInt64 = 60, maxPeers: Int = 1_000) {
        self.perWindow = perWindow
        self.windowSeconds = windowSeconds
        self.maxPeers = maxPeers
    }

    /// Whether a line caused by `peer` may be written at `now`; `summary` holds the lines
    /// to write first (what was dropped in the window that just ended).
    mutating func admit(_ peer: Pubky, now: UInt64) -> (allowed: Bool, summary: [String]) {
        var summary: [String] = []
        if now >= windowStart + windowSeconds {
            for (who, count) in dropped.sorted(by: { $0.value > $1.value }) {
                summary.append("\(count) log line\(count == 1 ? "" : "s") dropped from \(who) in the last \(windowSeconds) s")
            }
            windowStart = now
            written = [:]
            dropped = [:]
            overflowWritten = 0
        }
        if written[peer] == nil, written.count >= maxPeers {
            // Too many peers this window: the rest share one budget.
            overflowWritten += 1
            return (overflowWritten <= perWindow, summary)
        }
        let count = written[peer, default: 0]
        guard count < perWindow else {
            if dropped[peer] != nil || dropped.count < maxPeers { dropped[peer, default: 0] += 1 }
            return (false, summary)
        }
        written[peer] = count + 1
        return (true, summary)
    }
}
