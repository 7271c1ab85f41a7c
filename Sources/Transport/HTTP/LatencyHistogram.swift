import Synchronization

/// A histogram of request durations in seconds, with fixed buckets: what an `HTTPClient`
/// records every whole exchange (`send`) into when its configuration names one, so the
/// node can export Bitcoin Core's and LND's latency to Prometheus. Counts are cumulative
/// per bucket at read time (Prometheus' `le` semantics); the sum is kept in nanoseconds so
/// adding never loses precision.
public final class LatencyHistogram: Sendable {
    /// Upper bounds in seconds: 1 ms to 10 s, the span between a loopback call and the
    /// client's 30 s timeout; slower calls land in +Inf.
    public static let defaultBoundsSeconds: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    public struct Snapshot: Sendable, Equatable {
        public let boundsSeconds: [Double]
        /// Observations at or below each bound (cumulative), one per bound.
        public let cumulativeCounts: [UInt64]
        public let count: UInt64
        public let sumNanoseconds: UInt64

        public var sumSeconds: Double { Double(sumNanoseconds) / 1_000_000_000 }
    }

    public let boundsSeconds: [Double]
    private let boundsNanoseconds: [UInt64]
    private let state: Mutex<(buckets: [UInt64], count: UInt64, sum: UInt64)>

    public init(boundsSeconds: [Double] = LatencyHistogram.defaultBoundsSeconds) {
        self.boundsSeconds = boundsSeconds
        boundsNanoseconds = boundsSeconds.map { UInt64(($0 * 1_000_000_000).rounded()) }
        state = Mutex((Array(repeating: 0, count: boundsSeconds.count), 0, 0))
    }

    public func record(nanoseconds: UInt64) {
        let index = boundsNanoseconds.firstIndex { nanoseconds <= $0 }
        state.withLock { value in
            if let index { value.buckets[index] += 1 }
            value.count += 1
            value.sum &+= nanoseconds
        }
    }

    /// Records the time `body` takes, whether it returns or throws.
    public func time<T>(_ body: () async throws -> T) async rethrows -> T {
        let start = ContinuousClock.now
        defer {
            let elapsed = ContinuousClock.now - start
            let (seconds, attoseconds) = elapsed.components
            record(nanoseconds: UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds)) / 1_000_000_000)
        }
        return try await body()
    }

    public var snapshot: Snapshot {
        state.withLock { value in
            var running: UInt64 = 0
            let cumulative = value.buckets.map { count -> UInt64 in
                running += count
                return running
            }
            return Snapshot(boundsSeconds: boundsSeconds, cumulativeCounts: cumulative, count: value.count,
                            sumNanoseconds: value.sum)
        }
    }
}
