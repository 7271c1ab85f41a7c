#if canImport(Glibc)
import Glibc
#endif
import Offers
import Synchronization
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

/// Fails instead of hanging when an async step does not finish in time.
func clientWithin<T: Sendable>(seconds: Double = 30, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            XCTFail("did not finish within \(seconds) s")
            throw ClientTestTimeout()
        }
        return value
    }
}

struct ClientTestTimeout: Error {}

/// Polls `condition` every 50 ms until it holds, failing after `seconds`.
func clientEventually(seconds: Double = 20, _ what: String, _ condition: @escaping @Sendable () async throws -> Bool) async throws {
    try await clientWithin(seconds: seconds) {
        while try await !condition() { try await Task.sleep(nanoseconds: 50_000_000) }
    }
}
