#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Wall-clock time in whole Unix seconds. Injected wherever validity windows are checked
/// (quote lifetimes, hourly rate limits), so tests set the time instead of waiting.
public protocol UnixClock: Sendable {
    var nowUnix: UInt64 { get }
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
