/// An ordered, bidirectional byte stream: a TCP connection on the event loop, or an
/// in-memory pipe in tests. HTTP and the secure channel are written against this, so the
/// same protocol code runs over both.
public protocol ByteStream: AnyObject, Sendable {
    /// The next bytes that arrived (never empty), or nil once the peer closed its side.
    func read() async throws -> [UInt8]?
    /// Like `read()`, but a stream may hold bytes back until `atLeast` have arrived, so a
    /// reader that needs a whole frame is woken once for it. A hint: fewer come back when no
    /// more can come for now (the end, a failure, a full read-ahead buffer), and a stream
    /// without read-ahead of its own returns what `read()` does.
    func read(atLeast: Int) async throws -> [UInt8]?
    /// Queues bytes for sending; returns once they are handed to the transport.
    func write(_ bytes: [UInt8]) async throws
    /// Closes both directions. Pending and later reads return nil; later writes throw.
    func close() async
}

extension ByteStream {
    /// Streams without read-ahead of their own return what `read()` does.
    public func read(atLeast: Int) async throws -> [UInt8]? {
        try await read()
    }
}

/// Waits without blocking a thread. The event loop provides one backed by its timers;
/// protocol state machines take it as a parameter so their timeouts run on the loop.
public protocol Sleeper: Sendable {
    func sleep(milliseconds: UInt64) async throws
    /// Runs `action` once, at least `milliseconds` from now, unless the returned alarm is
    /// disarmed first (`Alarm`). The action must not block. Every sleeper has one built
    /// on `sleep` (Alarm.swift); the event loop's needs no task.
    func alarm(milliseconds: UInt64, _ action: @escaping @Sendable () -> Void) -> Alarm
}

/// Errors of a byte stream itself (not of the protocol spoken over it).
public enum ByteStreamError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A write after `close()`, or after the peer went away.
    case closed

    public var description: String {
        switch self {
        case .closed: return "the connection is closed"
        }
    }
}
