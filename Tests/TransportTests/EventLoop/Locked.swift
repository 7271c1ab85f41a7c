import Synchronization

/// A mutex-protected value that closures on other threads can share (Mutex itself is
/// non-copyable, so escaping closures cannot capture it directly).
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) {
        mutex = Mutex(value)
    }

    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R {
        mutex.withLock { body(&$0) }
    }

    var value: Value { withLock { $0 } }
}
