import CLibUV
import Glibc
import Synchronization

/// The write side of a libuv stream connection, shared between the writer's thread and the
/// loop's: a write that the kernel takes whole is made on the writer's own thread, with no
/// hop to the loop and back, which cost two thread wake-ups per write (docs/PERFORMANCE.md,
/// "Writes on the writer's thread"). Only what the kernel refuses (a full socket buffer) or
/// what must queue behind such a write goes through libuv's write queue on the loop.
///
/// Why this is sound beside libuv, which is not thread-safe: with no `uv_write` queued,
/// libuv's own `uv_try_write` is this same non-blocking `write(2)` on the descriptor and
/// touches no loop state; the lock keeps a direct write from overlapping a queued one (a
/// write starts directly only while `queued` is 0) and from reaching a descriptor that
/// `uv_close` has released (`close()` takes the lock before the loop closes the handle).
///
/// Writes that queue get tickets in the order they must reach the wire; the loop starts
/// them in ticket order, whichever thread's submission arrives first.
final class StreamOutbox: Sendable {
    /// What `writeNow` did.
    enum Attempt {
        /// The kernel took every byte.
        case done
        /// The bytes from `sent` on must go through the loop's queue, as `ticket`.
        case queue(sent: Int, ticket: Int)
    }

    private struct Shared {
        var closed = false
        /// Tickets handed out and not yet finished by the loop.
        var queued = 0
        var nextTicket = 0
    }

    /// The stream's descriptor; fixed for the handle's life, valid until `close()`. Nil
    /// if libuv would not say: then every write queues.
    private let descriptor: Int32?
    private let shared = Mutex(Shared())

    init(descriptor: Int32?) {
        self.descriptor = descriptor
    }

    /// Writes `bytes` now if nothing is queued; otherwise, or for what the kernel would not
    /// take, hands out a ticket. Throws `ByteStreamError.closed` after `close()`, and the
    /// write's failure as a `LibUVError` (`UVStreamCore.writeFailure` says which of them
    /// mean the peer is gone).
    func writeNow(_ bytes: [UInt8]) throws -> Attempt {
        try shared.withLock { state throws -> Attempt in
            if state.closed { throw ByteStreamError.closed }
            var sent = 0
            if state.queued == 0, let descriptor {
                sent = try Self.write(descriptor, bytes)
                if sent == bytes.count { return .done }
            }
            state.queued += 1
            defer { state.nextTicket += 1 }
            return .queue(sent: sent, ticket: state.nextTicket)
        }
    }

    /// A queued write is done (written, failed or never started).
    func finished() {
        shared.withLock { $0.queued -= 1 }
    }

    /// No direct write starts after this returns; called on the loop before `uv_close`.
    func close() {
        shared.withLock { $0.closed = true }
    }

    /// One non-blocking `write(2)`: the bytes taken, 0 when the socket buffer is full.
    private static func write(_ descriptor: Int32, _ bytes: [UInt8]) throws -> Int {
        while true {
            let rc = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if rc >= 0 { return rc }
            let code = errno
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return 0
            // libuv's codes are the negated errno on Unix.
            default: throw LibUVError(call: "uv_try_write", code: -code)
            }
        }
    }
}
