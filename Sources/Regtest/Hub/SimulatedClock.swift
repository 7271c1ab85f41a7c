#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Transport

/// The hub's unix time, running `rate` simulated seconds per real second (`peernode-regtest
/// --clock-rate`). At rate 1 it is the wall clock; above, a mainnet-paced run (10-minute
/// blocks) fits in seconds: at 600 a simulated 10 minutes pass in one real second. The
/// Lightning simulator's invoice times follow it, `hub_clock` serves it to daemons that
/// were asked to follow it (`PEERNODE_TEST_CLOCK=hub`), and it paces the hub's blocks.
///
/// Elapsed time is measured on the monotonic clock, so a wall-clock step (NTP) does not
/// make simulated time jump by `rate` times the step, and never makes it go backwards.
public final class SimulatedClock: Sendable {
    /// Simulated seconds per real second, at least 1.
    public let rate: Int
    private let wall: @Sendable () -> Int64
    /// Unix milliseconds of the wall clock when the clock started (rate > 1 only).
    private let originMilliseconds: Int64
    private let originMonotonicNanoseconds: UInt64

    /// - Parameters:
    ///   - rate: simulated seconds per real second (1: the wall clock itself).
    ///   - wall: the wall clock in unix seconds (tests inject a settable one; at rate 1
    ///     `now()` is exactly this, so the hub behaves as it did before the clock existed).
    public init(rate: Int, wall: @escaping @Sendable () -> Int64) {
        self.rate = max(1, rate)
        self.wall = wall
        originMilliseconds = wall() * 1_000
        originMonotonicNanoseconds = Self.monotonicNanoseconds()
    }

    /// Simulated unix seconds.
    public func now() -> Int64 {
        rate == 1 ? wall() : nowMilliseconds() / 1_000
    }

    /// Simulated unix milliseconds: what `hub_clock` serves, so a follower can interpolate
    /// finer than a second (at rate 600 one real millisecond is 0.6 simulated seconds).
    public func nowMilliseconds() -> Int64 {
        guard rate > 1 else { return Self.realtimeMilliseconds() }
        let elapsed = Self.monotonicNanoseconds() &- originMonotonicNanoseconds
        return originMilliseconds + Int64(elapsed / 1_000_000) * Int64(rate)
    }

    /// The real time `simulatedSeconds` take at this rate, in milliseconds (at least 1).
    public func realMilliseconds(forSimulatedSeconds simulatedSeconds: Int) -> UInt64 {
        UInt64(max(1, simulatedSeconds * 1_000 / rate))
    }

    private static func monotonicNanoseconds() -> UInt64 { MonotonicClock.nanoseconds() }

    private static func realtimeMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000 + Int64(now.tv_nsec) / 1_000_000
    }
}
