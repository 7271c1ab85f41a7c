#if canImport(Glibc)
import Glibc
#endif
import Offers
import Synchronization
import TestSupport
import XCTest

/// A Unix clock a test sets.
final class ClientTestClock: UnixClock {
    private let now: Mutex<UInt64>
    init(_ start: UInt64 = UInt64(time(nil))) { now = Mutex(start) }
    var nowUnix: UInt64 { now.withLock { $0 } }
    func advance(by seconds: UInt64) { now.withLock { $0 += seconds } }
}

/// The wall clock.
struct ClientWallClock: UnixClock {
    var nowUnix: UInt64 { UInt64(time(nil)) }
}

/// Polls `condition` every 50 ms until it holds, failing after `seconds`.
func clientEventually(seconds: Double = 20, _ what: String, _ condition: @escaping @Sendable () async throws -> Bool) async throws {
    try await within(seconds: seconds) {
        while try await !condition() { try await Task.sleep(nanoseconds: 50_000_000) }
    }
}
