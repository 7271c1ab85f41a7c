import Synchronization

/// One end of an in-memory stream pair: what one end writes, the other reads, in order.
/// Used by tests of the protocols that run over `ByteStream`, and by in-process peers.
public final class MemoryByteStream: ByteStream {
    private struct State {
        var buffered: [[UInt8]] = []
        var waiting: CheckedContinuation<[UInt8]?, Never>?
        var closed = false
    }

    private let inbox = Mutex(State())
    // The other end's inbox; set once right after creation, before either end is shared.
    private nonisolated(unsafe) weak var peer: MemoryByteStream?

    private init() {}

    /// Two connected ends.
    public static func pair() -> (MemoryByteStream, MemoryByteStream) {
        let a = MemoryByteStream()
        let b = MemoryByteStream()
        a.peer = b
        b.peer = a
        return (a, b)
    }

    public func read() async throws -> [UInt8]? {
        await withCheckedContinuation { (continuation: CheckedContinuation<[UInt8]?, Never>) in
            let immediate: [UInt8]?? = inbox.withLock { state in
                if !state.buffered.isEmpty { return .some(state.buffered.removeFirst()) }
                if state.closed { return .some(nil) }
                precondition(state.waiting == nil, "MemoryByteStream supports one reader at a time")
                state.waiting = continuation
                return nil
            }
            if let value = immediate { continuation.resume(returning: value) }
        }
    }

    public func write(_ bytes: [UInt8]) async throws {
        guard !bytes.isEmpty else { return }
        guard let peer, !isClosed else { throw ByteStreamError.closed }
        try peer.deliver(bytes)
    }

    public func close() async {
        shutDown()
        peer?.shutDown()
    }

    private var isClosed: Bool { inbox.withLock { $0.closed } }

    private func deliver(_ bytes: [UInt8]) throws {
        let waiter: CheckedContinuation<[UInt8]?, Never>? = try inbox.withLock { state in
            if state.closed { throw ByteStreamError.closed }
            if let waiting = state.waiting {
                state.waiting = nil
                return waiting
            }
            state.buffered.append(bytes)
            return nil
        }
        waiter?.resume(returning: bytes)
    }

    private func shutDown() {
        let waiter = inbox.withLock { state -> CheckedContinuation<[UInt8]?, Never>? in
            state.closed = true
            defer { state.waiting = nil }
            return state.waiting
        }
        waiter?.resume(returning: nil)
    }
}
