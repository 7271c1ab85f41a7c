#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Wall-clock seconds, for the few answers that depend on the time (IBD status).
enum HubClock {
    static func now() -> Int { Int(time(nil)) }
}
