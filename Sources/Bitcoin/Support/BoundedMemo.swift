import Synchronization

/// Answers already worked out in this process, by their whole input: for pure functions
/// that cost scalar multiplications (a pubky's check, a contract's key aggregation) and
/// are asked again with the same input, step after step. A remembered value is exactly
/// what working it out again would give, provided the key holds every input.
///
/// Bounded: when `capacity` values are held the memo is emptied, so a peer that sends
/// many distinct inputs costs their work and no more memory than this. Only what the
/// caller remembers is kept (a caller remembers successes, not failures).
public final class BoundedMemo<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    public let capacity: Int
    private let known = Mutex<[Key: Value]>([:])

    public init(capacity: Int) {
        precondition(capacity > 0, "a memo of nothing")
        self.capacity = capacity
    }

    /// The value remembered for `key`, or nil.
    public subscript(key: Key) -> Value? {
        known.withLock { $0[key] }
    }

    /// Remembers `value` for `key`, emptying the memo first when it is full.
    public func remember(_ value: Value, for key: Key) {
        known.withLock { known in
            if known.count >= capacity { known.removeAll(keepingCapacity: true) }
            known[key] = value
        }
    }

    /// Values held.
    public var count: Int { known.withLock { $0.count } }
}
