import Synchronization
import Transport

/// The providers that failed a quote lately (`RouteRetry`'s pass-overs), tried last for
/// ten minutes. `RouteRetry` gets one payment past a provider that stalls, forges or lies;
/// this keeps the next payments from paying for it again (a staller costs the request
/// timeout each time it is tried). Tried last, not left out: it may be the only provider
/// that fits. In memory only, as the offers cache is: a restart forgets it.
final class QuoteFailures: Sendable {
    /// How long a failure keeps its provider last.
    static let holdSeconds: UInt64 = 600
    /// At most this many remembered; the oldest go first.
    static let capacity = 256

    private let failedAt = Mutex<[Pubky: UInt64]>([:])

    /// Remembers that `provider` failed a quote at `nowUnix`.
    func note(_ provider: Pubky, nowUnix: UInt64) {
        failedAt.withLock { failed in
            failed = failed.filter { nowUnix < $0.value + Self.holdSeconds }
            failed[provider] = nowUnix
            while failed.count > Self.capacity, let oldest = failed.min(by: { $0.value < $1.value }) {
                failed[oldest.key] = nil
            }
        }
    }

    /// Seconds since `provider` failed a quote, while that still keeps it last.
    func secondsSinceFailure(of provider: Pubky, nowUnix: UInt64) -> UInt64? {
        failedAt.withLock { failed in
            guard let at = failed[provider], nowUnix < at + Self.holdSeconds else { return nil }
            return nowUnix >= at ? nowUnix - at : 0
        }
    }

    /// `ranked` with the providers that failed lately moved to the end, each part in its
    /// order; and those moved, each with the seconds since its failure.
    func failedLast<Candidate>(_ ranked: [Candidate], nowUnix: UInt64,
                               provider: (Candidate) -> Pubky) -> (ranked: [Candidate], moved: [(Candidate, UInt64)]) {
        var fresh: [Candidate] = [], moved: [(Candidate, UInt64)] = []
        for candidate in ranked {
            if let seconds = secondsSinceFailure(of: provider(candidate), nowUnix: nowUnix) {
                moved.append((candidate, seconds))
            } else {
                fresh.append(candidate)
            }
        }
        return (fresh + moved.map(\.0), moved)
    }
}
