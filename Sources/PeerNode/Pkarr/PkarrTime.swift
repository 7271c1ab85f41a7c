#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The timestamps this node signs its packets with: wall-clock microseconds (BEP 44's
/// `seq`), never below the last one signed, so a packet signed now always beats the one
/// before it even if the clock stepped back.
public enum PkarrTime {
    public static func nowMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return UInt64(max(0, now.tv_sec)) * 1_000_000 + UInt64(max(0, now.tv_nsec)) / 1_000
    }

    /// A timestamp for a packet replacing one signed at `previous`.
    public static func after(_ previous: UInt64?) -> UInt64 {
        max(nowMicroseconds(), (previous ?? 0) + 1)
    }
}
