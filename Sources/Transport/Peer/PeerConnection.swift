import Synchronization

/// A live, authenticated connection to one peer: requests with replies matched by
/// `request_id`, incoming requests answered by a handler, and pushes both ways.
///
/// Every message is one JSON object (see `MessageEnvelope`); this layer reads only `type`
/// and `request_id`. A peer that sends something else, or breaks a limit, is disconnected
/// with the reason logged. Requests still waiting then fail with that reason.
///
/// The connection reads in its own task and stays open until `close()`, the peer closes,
/// or the idle timeout: dropping the last reference does not close it.
public actor PeerConnection {
    public nonisolated let remotePubky: Pubky
    public nonisolated let direction: PeerDirection

    private struct Pending {
        enum State {
            /// Registered, the request is being written; a result may still come first.
            case sending
            case waiting(CheckedContinuation<Result<[UInt8], ChannelError>, Never>)
            case done(Result<[UInt8], ChannelError>)
        }
        let token: UInt64
        var state: State
        var timer: Alarm?
    }

    private let channel: SecureChannel
    private let sleeper: any Sleeper
    private let limits: PeerLimits
    private let log: PeerLog
    private let handlers: PeerHandlers
    private var pending: [String: Pending] = [:]
    private var abandoned: RecentRequestIDs
    private var nextToken: UInt64 = 0
    /// The peer's requests whose handler has not finished: at most `maxInFlightRequests`.
    /// A slot frees before its reply is written, because the peer may read the reply and
    /// send its next request before our write returns to this actor.
    private var requestsBeingHandled = 0
    /// Replies handed to the channel whose write has not returned. A peer that keeps asking
    /// but stops reading piles these up; an honest one holds at most its allowance here
    /// plus the few whose write returned after it read them, so twice the allowance bounds
    /// both counts together.
    private var repliesBeingWritten = 0
    private var pushQueue: [[UInt8]] = []
    private var deliveringPushes = false
    private var closingLocally = false
    private var started = false
    private var closeReason: PeerCloseReason?
    private var closeWaiters: [CheckedContinuation<PeerCloseReason, Never>] = []
    /// When the peer last sent a message (or the connection opened): eviction prefers idle
    /// peers, which this tells apart from ones in use. Behind a lock rather than on the
    /// actor, so the server can rank its peers synchronously, without awaiting each one.
    private nonisolated let lastReceivedLock = Mutex(ContinuousClock.now)
    public nonisolated var lastReceived: ContinuousClock.Instant { lastReceivedLock.withLock { $0 } }

    init(channel: SecureChannel, direction: PeerDirection, sleeper: any Sleeper, limits: PeerLimits,
         log: PeerLog, handlers: PeerHandlers) {
        remotePubky = channel.remotePubky
        self.direction = direction
        self.channel = channel
        self.sleeper = sleeper
        self.limits = limits
        self.log = log
        self.handlers = handlers
        abandoned = RecentRequestIDs(capacity: 4 * limits.maxInFlightRequests)
    }

    /// Dials `contact` over `stream` (already connected to its address) and starts serving
    /// the connection. Throws, and logs, when the handshake fails; `wrongRemotePubky` names
    /// the pubky dialled and the one reached.
    public static func dial(over stream: any ByteStream, identity: NodeIdentity, expecting contact: Pubky,
                            sleeper: any Sleeper, limits: PeerLimits = PeerLimits(), log: PeerLog = .silent,
                            handlers: PeerHandlers = PeerHandlers()) async throws(ChannelError) -> PeerConnection {
        let channel: SecureChannel
        do {
            channel = try await SecureChannel.connect(over: stream, identity: identity, expecting: contact,
                                                      sleeper: sleeper, limits: limits.channel)
        } catch {
            log(.handshakeFailed(direction: .outbound, error: error))
            throw error
        }
        let connection = PeerConnection(channel: channel, direction: .outbound, sleeper: sleeper, limits: limits,
                                        log: log, handlers: handlers)
        await connection.start()
        return connection
    }

    /// Starts reading. Separate from `init` because the reader is a task holding `self`.
    func start() {
        guard !started else { return }
        started = true
        log(.connected(peer: remotePubky, direction: direction))
        Task { await self.readLoop() }
    }

    /// Sends `json` (a message whose `"request_id"` is `id`) and returns the peer's reply.
    ///
    /// Fails without touching the connection for local mistakes (`requestIDMismatch`,
    /// `duplicateRequestID`, `tooManyRequestsInFlight`, `messageTooLarge`, a message that is
    /// not an envelope). `requestTimedOut` after `timeoutMilliseconds` (default
    /// `PeerLimits.requestTimeoutMilliseconds`) also leaves the connection open; a reply
    /// that still comes is dropped. Cancelling the calling task ends the wait.
    public func request(_ json: [UInt8], id: String, timeoutMilliseconds: UInt64? = nil) async throws(ChannelError) -> [UInt8] {
        if let closeReason { throw closeReason.error }
        let envelope = try MessageEnvelope.parse(json, limits: limits.json)
        guard envelope.requestID == id else { throw .requestIDMismatch }
        guard pending[id] == nil else { throw .duplicateRequestID }
        guard pending.count < limits.maxInFlightRequests else {
            throw .tooManyRequestsInFlight(limit: limits.maxInFlightRequests)
        }
        let token = nextToken
        nextToken += 1
        abandoned.remove(id)
        let timeout = timeoutMilliseconds ?? limits.requestTimeoutMilliseconds
        let timer = sleeper.alarm(milliseconds: timeout) { [weak self] in
            Task { await self?.giveUp(on: id, token: token, with: .requestTimedOut(milliseconds: timeout)) }
        }
        pending[id] = Pending(token: token, state: .sending, timer: timer)
        do {
            try await channel.send(json)
        } catch {
            resolve(id, token: token, with: .failure(error))
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                wait(for: id, token: token, continuation: continuation)
            }
        } onCancel: {
            Task { await self.giveUp(on: id, token: token, with: .cancelled) }
        }
        return try result.get()
    }

    /// Sends a message that expects no reply.
    public func push(_ json: [UInt8]) async throws(ChannelError) {
        if let closeReason { throw closeReason.error }
        _ = try MessageEnvelope.parse(json, limits: limits.json)
        try await channel.send(json)
    }

    /// Closes the connection; waiting requests fail with `closed`. Idempotent.
    public func close() async {
        guard closeReason == nil else { return }
        closingLocally = true
        await channel.close()
        // Before `start` there is no reader to notice the close and finish up.
        if !started { await finish(.closedLocally) }
    }

    /// Returns once the connection has ended, with the reason.
    public func waitUntilClosed() async -> PeerCloseReason {
        if let closeReason { return closeReason }
        return await withCheckedContinuation { closeWaiters.append($0) }
    }

    /// Nil while open.
    public var closedReason: PeerCloseReason? { closeReason }

    /// Our requests now waiting for replies.
    public var requestsInFlight: Int { pending.count }

    // MARK: Reading

    private func readLoop() async {
        var reason: PeerCloseReason
        while true {
            do {
                guard let message = try await channel.receive() else {
                    reason = closingLocally ? .closedLocally : .closedByPeer
                    break
                }
                lastReceivedLock.withLock { $0 = .now }
                try dispatch(message)
            } catch {
                reason = closingLocally ? .closedLocally : .failed(error)
                break
            }
        }
        await finish(reason)
    }

    private func dispatch(_ message: [UInt8]) throws(ChannelError) {
        let envelope = try MessageEnvelope.parse(message, limits: limits.json)
        let route = PeerRoute.of(envelope, isPending: { id in
            if case .done = pending[id]?.state { return false }
            return pending[id] != nil
        }, wasAbandoned: { abandoned.contains($0) || pending[$0] != nil }, servesRequests: handlers.onRequest != nil)
        switch route {
        case .reply(let id):
            resolve(id, token: nil, with: .success(message))
        case .lateReply:
            log(.lateReplyDropped(peer: remotePubky))
        case .request:
            guard let handler = handlers.onRequest else { return }
            guard requestsBeingHandled < limits.maxInFlightRequests else {
                throw .peerExceededInFlightLimit(limit: limits.maxInFlightRequests)
            }
            guard requestsBeingHandled + repliesBeingWritten < 2 * limits.maxInFlightRequests else {
                throw .peerNotReadingReplies(unwritten: repliesBeingWritten)
            }
            requestsBeingHandled += 1
            let peer = remotePubky
            Task {
                let reply = await handler(message, peer)
                await self.sendReply(reply)
            }
        case .push:
            guard handlers.onPush != nil else { return }
            guard pushQueue.count < limits.maxQueuedPushes else {
                throw .pushBacklogExceeded(limit: limits.maxQueuedPushes)
            }
            pushQueue.append(message)
            if !deliveringPushes {
                deliveringPushes = true
                Task { await self.deliverPushes() }
            }
        }
    }

    private func sendReply(_ reply: [UInt8]) async {
        requestsBeingHandled -= 1
        guard closeReason == nil else { return }
        repliesBeingWritten += 1
        defer { repliesBeingWritten -= 1 }
        do {
            _ = try MessageEnvelope.parse(reply, limits: limits.json)
            try await channel.send(reply)
        } catch {
            if closeReason == nil { log(.replyNotSent(peer: remotePubky, error: error)) }
        }
    }

    private func deliverPushes() async {
        while closeReason == nil, !pushQueue.isEmpty, let handler = handlers.onPush {
            let message = pushQueue.removeFirst()
            await handler(message, remotePubky)
        }
        deliveringPushes = false
    }

    // MARK: Waiting requests

    private func wait(for id: String, token: UInt64,
                      continuation: CheckedContinuation<Result<[UInt8], ChannelError>, Never>) {
        guard var entry = pending[id], entry.token == token else {
            // Unreachable: entries leave the table only through a waiting continuation.
            continuation.resume(returning: .failure(.closed))
            return
        }
        if case .done(let result) = entry.state {
            pending[id] = nil
            continuation.resume(returning: result)
        } else {
            entry.state = .waiting(continuation)
            pending[id] = entry
        }
    }

    /// Hands `result` to request `id` (only the one with `token`, when given).
    private func resolve(_ id: String, token: UInt64?, with result: Result<[UInt8], ChannelError>) {
        guard var entry = pending[id], token == nil || entry.token == token else { return }
        entry.timer?.disarm()
        entry.timer = nil
        switch entry.state {
        case .sending:
            entry.state = .done(result)
            pending[id] = entry
        case .waiting(let continuation):
            pending[id] = nil
            continuation.resume(returning: result)
        case .done:
            return
        }
    }

    private func giveUp(on id: String, token: UInt64, with error: ChannelError) {
        guard pending[id]?.token == token else { return }
        abandoned.insert(id)
        resolve(id, token: token, with: .failure(error))
    }

    private func finish(_ reason: PeerCloseReason) async {
        guard closeReason == nil else { return }
        closeReason = reason
        await channel.close()
        for id in Array(pending.keys) {
            resolve(id, token: nil, with: .failure(reason.error))
        }
        pushQueue.removeAll()
        log(.disconnected(peer: remotePubky, direction: direction, reason: reason))
        let waiters = closeWaiters
        closeWaiters.removeAll()
        for waiter in waiters { waiter.resume(returning: reason) }
    }
}
