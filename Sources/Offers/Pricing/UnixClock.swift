/// Wall-clock time in whole Unix seconds. Injected wherever validity windows are checked
/// (quote lifetimes, hourly rate limits), so tests set the time instead of waiting.
public protocol UnixClock: Sendable {
    var nowUnix: UInt64 { get }
}
