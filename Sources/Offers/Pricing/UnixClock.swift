#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Wall-clock time in whole Unix seconds. Injected wherever validity windows are checked
/// (quote lifetimes, hourly rate limits), so tests set the time instead of waiting.
public protocol UnixClock: Sendable {
    var nowUnix: UInt64 { get }

    /// How many real milliseconds `seconds` of this clock take. A timer that stands for a
    /// deadline on this clock sleeps this long: the wall clock's seconds are real ones, a
    /// regtest clock that follows the hub's simulated time runs faster (`--clock-rate`).
    func realMilliseconds(forSeconds seconds: UInt64) -> UInt64
}

extension UnixClock {
    public func realMilliseconds(forSeconds seconds: UInt64) -> UInt64 {
        seconds.multipliedReportingOverflow(by: 1_000).overflow ? .max : seconds * 1_000
    }
}

/// The real wall clock, for the daemon and the benchmarks.
public struct SystemClock: UnixClock {
    public init() {}

    public var nowUnix: UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return UInt64(max(0, now.tv_sec))
    }
}
