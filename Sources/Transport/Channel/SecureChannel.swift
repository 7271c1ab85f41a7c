/// An authenticated, encrypted message channel to one peer, over any `ByteStream`.
///
/// Made by `connect` (dialling a known pubky) or `accept` (learning the dialler's pubky);
/// see `SecureChannel+Handshake.swift`. After that each `send` is one frame and each
/// `receive` returns one whole message. The pure protocol lives in `ChannelHandshake` and
/// `ChannelSession`; this actor only moves bytes, orders writes and runs the idle timer.
///
/// Any peer-caused failure (bad frame, failed decryption, idle timeout, nonce limit) closes
/// the stream; `receive` then throws that error, and `closeReason` keeps it.
public actor SecureChannel {
    /// The peer, authenticated by the handshake.
    public nonisolated let remotePubky: Pubky
    /// The Noise handshake hash: the same on both ends, unique to this session.
    public nonisolated let handshakeHash: [UInt8]
    public nonisolated let limits: ChannelLimits

    private let stream: any ByteStream
    private let sleeper: any Sleeper
    private var session: ChannelSession
    private var inbox: [[UInt8]] = []
    private var inboxStart = 0
    private var failure: ChannelError?
    private var isClosed = false
    /// Bumped per message sent or received; the idle watch compares snapshots of it.
    private var activity: UInt64 = 0
    private var writing = false
    private var writeWaiters: [CheckedContinuation<Void, Never>] = []
    /// The idle watch's next tick, and what the ticks so far saw (`idleTick`).
    private var idleWatch: Alarm?
    private var idleSeen: UInt64 = 0
    private var idleQuiet: UInt64 = 0
    /// Whether bytes that came in with the last handshake message have been decoded yet.
    private var openedHandshakeLeftovers = false

    init(session: consuming ChannelSession, stream: any ByteStream, sleeper: any Sleeper, limits: ChannelLimits) {
        remotePubky = session.remotePubky
        handshakeHash = session.handshakeHash
        self.session = session
        self.stream = stream
        self.sleeper = sleeper
        self.limits = limits
    }

    /// The error that closed the channel, nil while open or after a clean close.
    public var closeReason: ChannelError? { failure }

    /// Sends one message as one frame. Concurrent sends are written whole and in the order
    /// they were sealed, so nonces reach the peer in sequence.
    ///
    /// `messageTooLarge` leaves the channel open; every other error has closed it.
    public func send(_ message: [UInt8]) async throws(ChannelError) {
        await takeWriteTurn()
        defer { passWriteTurn() }
        if let failure { throw failure }
        guard !isClosed else { throw .closed }
        let frame: [UInt8]
        do {
            frame = try session.seal(message)
        } catch {
            if case .messageTooLarge = error { throw error }
            await fail(error)
            throw error
        }
        do {
            try await stream.write(frame)
        } catch {
            await fail(.streamFailed(ErrorText.describe(error)))
            throw failure ?? .closed
        }
        activity &+= 1
    }

    /// The next message, or nil once the channel closed cleanly (the peer's end of stream
    /// on a frame boundary, or a local `close()`). One receiver at a time.
    public func receive() async throws(ChannelError) -> [UInt8]? {
        while true {
            if inboxStart < inbox.count {
                let message = inbox[inboxStart]
                inboxStart += 1
                if inboxStart == inbox.count {
                    inbox.removeAll(keepingCapacity: true)
                    inboxStart = 0
                }
                return message
            }
            if let failure { throw failure }
            if isClosed { return nil }
            if !openedHandshakeLeftovers {
                // A fast dialler's first frame often shares a read with handshake message 3;
                // the handshake left those bytes in the session's decoder. Decode them before
                // waiting on the stream, or a whole message would sit there unread.
                openedHandshakeLeftovers = true
                if let error = deliver(bytes: []) { await fail(error) }
                continue
            }
            let bytes: [UInt8]?
            do {
                // Woken once the frame under way is whole: a frame may come in pieces
                // (the sender's writes, the kernel's segments), and decoding half of one
                // yields nothing.
                bytes = try await stream.read(atLeast: session.bytesToNextFrame)
            } catch {
                await fail(.streamFailed(ErrorText.describe(error)))
                continue
            }
            guard !isClosed else { continue }
            guard let bytes else {
                await fail(session.hasPartialFrame ? .truncatedFrame : nil)
                continue
            }
            if let error = deliver(bytes: bytes) { await fail(error) }
        }
    }

    /// Decodes `bytes` (with whatever the decoder already holds) into the inbox.
    private func deliver(bytes: [UInt8]) -> ChannelError? {
        do {
            let messages = try session.open(bytes)
            // Only whole messages count as traffic, so a peer dribbling bytes of a
            // frame that never completes still reaches the idle timeout.
            if !messages.isEmpty { activity &+= 1 }
            inbox += messages
            return nil
        } catch {
            return error
        }
    }

    /// Closes the channel; a pending `receive` returns nil. Idempotent.
    public func close() async {
        await fail(nil)
    }

    func startIdleWatch() {
        guard idleWatch == nil, !isClosed else { return }
        idleSeen = activity
        armIdleTick()
    }

    /// Test hook: jumps the nonces close to the limit.
    func setNoncesForTesting(sending: UInt64, receiving: UInt64) {
        session.setNoncesForTesting(sending: sending, receiving: receiving)
    }

    /// Closes with `error` as the reason (nil: a clean close). The first reason sticks.
    private func fail(_ error: ChannelError?) async {
        guard !isClosed else { return }
        isClosed = true
        failure = error
        idleWatch?.disarm()
        await stream.close()
    }

    /// The idle watch ticks every quarter timeout and closes once a whole timeout passed
    /// without a message either way, so the close comes between 1 and 1.25 timeouts after
    /// the last message. Ticks rather than one alarm moved at every message: a message
    /// only counts, and no clock is needed, only the `Sleeper`. Each tick is an alarm (on
    /// the loop, no task between ticks), so an idle watch costs a connection nothing while
    /// it lives and one disarm when it closes.
    private var idleTickMilliseconds: UInt64 { max(1, limits.idleTimeoutMilliseconds / 4) }

    private func armIdleTick() {
        idleWatch = sleeper.alarm(milliseconds: idleTickMilliseconds) { [weak self] in
            Task { await self?.idleTick() }
        }
    }

    private func idleTick() async {
        guard !isClosed else { return }
        let timeout = limits.idleTimeoutMilliseconds
        if activity != idleSeen {
            idleSeen = activity
            idleQuiet = 0
        } else {
            idleQuiet += idleTickMilliseconds
            if idleQuiet >= timeout {
                await fail(.idleTimeout(milliseconds: timeout))
                return
            }
        }
        armIdleTick()
    }

    private func takeWriteTurn() async {
        guard writing else {
            writing = true
            return
        }
        await withCheckedContinuation { writeWaiters.append($0) }
    }

    /// Hands the turn straight to the next writer in line, so writes stay first-come.
    private func passWriteTurn() {
        if writeWaiters.isEmpty {
            writing = false
        } else {
            writeWaiters.removeFirst().resume()
        }
    }
}
