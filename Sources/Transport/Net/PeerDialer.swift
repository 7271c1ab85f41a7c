/// Dials peers over TCP: connects to `host:port` on the event loop, then runs the secure
/// handshake expecting the given pubky. Knows nothing of contacts or the store, so the
/// node, the CLI and tests all dial the same way.
///
///     let dialer = PeerDialer(identity: me, loop: loop)
///     let peer = try await dialer.dial(contact.pubky, host: contact.host, port: contact.port)
///     let reply = try await peer.request(quoteRequest, id: "q1")
///
/// The connect has its own timeout; the handshake then has `limits.channel`'s.
public struct PeerDialer: Sendable {
    public let identity: NodeIdentity
    public let loop: EventLoop
    public var limits: PeerLimits
    public var log: PeerLog
    /// What this side serves on connections it dialled (a peer may request or push back).
    public var handlers: PeerHandlers
    /// From the start of the dial until TCP is connected (name resolution included); nil
    /// waits as long as the operating system does.
    public var connectTimeoutMilliseconds: UInt64?
    /// Bytes read ahead per connection before reading pauses.
    public var readBufferLimit: Int
    /// Runs the connect timeout and the channel's timers; the loop's own timers by default.
    public var sleeper: any Sleeper
    /// Asked for a key's endpoint again when a connect fails (a contact found through pkarr
    /// may have moved: docs/PUBKY.md); a different answer is dialled once more. Nil: none.
    public var reResolve: EndpointReResolver?

    /// A key's endpoint looked up afresh, or nil when nothing newer is known.
    public typealias EndpointReResolver = @Sendable (_ pubky: Pubky) async -> (host: String, port: Int)?

    public init(identity: NodeIdentity, loop: EventLoop, limits: PeerLimits = PeerLimits(),
                log: PeerLog = .silent, handlers: PeerHandlers = PeerHandlers(),
                connectTimeoutMilliseconds: UInt64? = 10_000,
                readBufferLimit: Int = TCPConnection.defaultReadBufferLimit) {
        self.identity = identity
        self.loop = loop
        self.limits = limits
        self.log = log
        self.handlers = handlers
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.readBufferLimit = readBufferLimit
        sleeper = loop.sleeper
        reResolve = nil
    }

    /// Connects to `host:port` and returns a serving connection to `pubky`, or fails
    /// (and closes the socket) when the node there cannot prove it holds that key. When the
    /// connect fails and `reResolve` knows another endpoint for the key, that one is tried.
    public func dial(_ pubky: Pubky, host: String, port: Int) async throws(PeerDialError) -> PeerConnection {
        let stream: TCPConnection
        do {
            stream = try await connect(host: host, port: port)
        } catch {
            guard let reResolve, let moved = await reResolve(pubky), moved.host != host || moved.port != port else {
                throw error
            }
            stream = try await connect(host: moved.host, port: moved.port)
        }
        do {
            // `dial` logs handshake failures itself and closes the stream on any of them.
            return try await PeerConnection.dial(over: stream, identity: identity, expecting: pubky, sleeper: sleeper,
                                                 limits: limits, log: log, handlers: handlers)
        } catch {
            throw .handshakeFailed(error)
        }
    }

    private func connect(host: String, port: Int) async throws(PeerDialError) -> TCPConnection {
        let address = Self.address(host: host, port: port)
        do {
            return try await TCPConnectAttempt.run(
                host: host, port: port, loop: loop, sleeper: sleeper,
                timeoutMilliseconds: connectTimeoutMilliseconds, readBufferLimit: readBufferLimit)
        } catch {
            switch error {
            case .timedOut:
                throw .connectTimedOut(address: address, milliseconds: connectTimeoutMilliseconds ?? 0)
            case .failed(let cause):
                throw .connectFailed(address: address, reason: ErrorText.describe(cause))
            }
        }
    }

    /// `host:port`, with an IPv6 literal in brackets so the port stays readable.
    static func address(host: String, port: Int) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
