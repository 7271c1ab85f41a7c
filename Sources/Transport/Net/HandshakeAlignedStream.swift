/// Works around a stall in `SecureChannel` on the responder side (see the report for
/// issue 3): when the dialler's handshake message 3 and its first transport frame arrive
/// in one read, the bytes after message 3 are kept in the session's frame decoder, but
/// `SecureChannel.receive` only decodes when a later read brings new bytes. The first
/// request then waits until the peer sends something else — in a request/response
/// exchange, until the idle timeout.
///
/// This stream passes another through, except that each of the first `alignedFrames`
/// frames ends a read: a read never carries bytes past the end of one of them. The
/// responder reads two handshake messages, so with `alignedFrames` 2 message 3 always comes
/// alone and whatever follows it comes by the next read, into the finished channel.
/// Bytes are never held back (a read returns everything up to the next boundary that has
/// arrived), so malformed input fails the handshake exactly as it would without this.
///
/// It runs on the loop of the TCP connection it wraps, so reading through it costs no
/// extra thread hop.
actor HandshakeAlignedStream: ByteStream {
    nonisolated let loop: EventLoop
    private let base: any ByteStream
    private var alignedFramesLeft: Int
    /// Bytes read from `base` and not yet returned.
    private var pending: [UInt8] = []
    /// The current frame's length prefix: bytes of it seen so far, and its value.
    private var headerBytesSeen = 0
    private var frameLength = 0
    /// Body bytes of the current frame still to come, once its header is complete.
    private var bodyLeft = 0

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        loop.asUnownedSerialExecutor()
    }

    init(_ base: any ByteStream, alignedFrames: Int, loop: EventLoop) {
        self.base = base
        self.alignedFramesLeft = alignedFrames
        self.loop = loop
    }

    func read() async throws -> [UInt8]? {
        if pending.isEmpty {
            guard let bytes = try await base.read() else { return nil }
            if alignedFramesLeft == 0 { return bytes }
            pending = bytes
        }
        guard alignedFramesLeft > 0 else {
            var rest: [UInt8] = []
            swap(&rest, &pending)
            return rest
        }
        let cut = boundary()
        if cut == pending.count {
            var all: [UInt8] = []
            swap(&all, &pending)
            return all
        }
        let head = Array(pending[..<cut])
        pending.removeFirst(cut)
        return head
    }

    /// How many of the pending bytes belong up to and including the end of the current
    /// aligned frame (all of them if it has not ended yet); advances the frame state.
    private func boundary() -> Int {
        var index = 0
        while index < pending.count {
            if headerBytesSeen < Frame.headerLength {
                frameLength = frameLength << 8 | Int(pending[index])
                headerBytesSeen += 1
                index += 1
                guard headerBytesSeen == Frame.headerLength else { continue }
                bodyLeft = frameLength
            } else {
                let take = min(bodyLeft, pending.count - index)
                index += take
                bodyLeft -= take
            }
            if bodyLeft == 0 {
                // A frame ended here (a zero-length one is garbage, but ends all the same).
                alignedFramesLeft -= 1
                headerBytesSeen = 0
                frameLength = 0
                return index
            }
        }
        return index
    }

    func write(_ bytes: [UInt8]) async throws {
        try await base.write(bytes)
    }

    func close() async {
        pending = []
        await base.close()
    }
}
