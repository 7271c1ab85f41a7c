import Synchronization

/// What a flood's workers did, by name, counted from many tasks at once: connections
/// opened, refused, held; messages sent and how they were answered. Gauges (`enter`,
/// `leave`) also keep their peak, so "slots held" reads as the most held at any moment.
final class FloodCounters: Sendable {
    private struct State {
        var counts: [String: Int] = [:]
        var gauges: [String: Int] = [:]
        var peaks: [String: Int] = [:]
    }

    private let state = Mutex(State())

    func add(_ name: String, _ amount: Int = 1) { state.withLock { $0.counts[name, default: 0] += amount } }

    func enter(_ gauge: String) {
        state.withLock {
            let now = $0.gauges[gauge, default: 0] + 1
            $0.gauges[gauge] = now
            $0.peaks[gauge] = max($0.peaks[gauge, default: 0], now)
        }
    }

    func leave(_ gauge: String) { state.withLock { $0.gauges[gauge, default: 0] -= 1 } }

    func count(_ name: String) -> Int { state.withLock { $0.counts[name, default: 0] } }

    /// Everything, for the report: counts as they are, gauges as `<name>_peak`.
    var snapshot: [String: Int] {
        state.withLock { state in
            var all = state.counts
            for (name, peak) in state.peaks { all[name + "_peak"] = peak }
            return all
        }
    }
}
