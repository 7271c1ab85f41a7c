import XCTest

/// Runs `operation`, failing the test and throwing `TooSlow` instead of hanging past `seconds`.
public func within<T: Sendable>(seconds: Double, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            XCTFail("did not finish within \(seconds) s")
            throw TooSlow()
        }
        return value
    }
}

/// What `within(seconds:_:)` throws when its operation did not finish in time.
public struct TooSlow: Error {}
