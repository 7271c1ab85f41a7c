/// The bounds the peer layer enforces, on top of each channel's. Breaking one closes that
/// peer's connection only (or refuses that one inbound connection).
///
/// The inbound connection budgets (see `ConnectionBudget`) keep one host or one operator
/// from locking honest peers out. The defaults:
/// - 64 handshakes in progress, at most 8 from one IP: handshakes cost the attacker no
///   cryptography until message 3, so they get a small budget of their own, apart from
///   the peers that proved a pubky; a full one evicts its oldest stalled handshake.
/// - 16 connections per IP and 32 per network group (/24, /64): a NATed household or a
///   small office fits; one host or one rented /24 holds an eighth of the peer budget.
/// - 4 connections per pubky: our client holds one connection per provider for its swaps
///   (`ClientProviderLink`) and probes it for offers over one more at a time (concurrent
///   payments share the probe, `Router`), which leaves room for a reconnect while the old
///   connection is still being closed, and keeps one identity from crowding the others out.
/// - 256 authenticated peers, of which the 4 fastest and the 4 longest connected (and any
///   the node marks protected) are never evicted for a newcomer.
public struct PeerLimits: Sendable, Equatable {
    public var channel: ChannelLimits
    /// Authenticated inbound peers served at once. A newcomer beyond it evicts an
    /// unprotected peer (see `ConnectionBudget`), or is refused if there is none.
    public var maxInboundConnections: Int
    /// Inbound handshakes in progress at once, counted apart from the peers.
    public var maxHandshakes: Int
    /// Inbound handshakes in progress from one IP.
    public var maxHandshakesPerHost: Int
    /// Inbound connections from one IP, handshakes included.
    public var maxConnectionsPerHost: Int
    /// Inbound connections from one /24 (IPv4) or /64 (IPv6), handshakes included.
    public var maxConnectionsPerNetworkGroup: Int
    /// Authenticated inbound connections of one pubky.
    public var maxConnectionsPerPubky: Int
    /// Peers with the lowest latency (handshake time) kept from eviction.
    public var evictionProtectLowestLatency: Int
    /// Longest-connected peers kept from eviction.
    public var evictionProtectLongestConnected: Int
    /// Requests waiting for replies on one connection, in each direction: ours beyond it
    /// are refused locally, the peer's beyond it close the connection.
    public var maxInFlightRequests: Int
    /// Default wait for a reply, when `request` is not given one.
    public var requestTimeoutMilliseconds: UInt64
    /// Pushes received but not yet handled; a peer pushing faster than this is closed.
    public var maxQueuedPushes: Int
    /// Bounds on each message's JSON.
    public var json: JSONParser.Limits

    public init(channel: ChannelLimits = ChannelLimits(), maxInboundConnections: Int = 256,
                maxHandshakes: Int = 64, maxHandshakesPerHost: Int = 8, maxConnectionsPerHost: Int = 16,
                maxConnectionsPerNetworkGroup: Int = 32, maxConnectionsPerPubky: Int = 4,
                evictionProtectLowestLatency: Int = 4, evictionProtectLongestConnected: Int = 4,
                maxInFlightRequests: Int = 32, requestTimeoutMilliseconds: UInt64 = 30_000,
                maxQueuedPushes: Int = 64, maxJSONDepth: Int = 32) {
        self.channel = channel
        self.maxInboundConnections = max(1, maxInboundConnections)
        self.maxHandshakes = max(1, maxHandshakes)
        self.maxHandshakesPerHost = max(1, maxHandshakesPerHost)
        self.maxConnectionsPerHost = max(1, maxConnectionsPerHost)
        self.maxConnectionsPerNetworkGroup = max(1, maxConnectionsPerNetworkGroup)
        self.maxConnectionsPerPubky = max(1, maxConnectionsPerPubky)
        self.evictionProtectLowestLatency = max(0, evictionProtectLowestLatency)
        self.evictionProtectLongestConnected = max(0, evictionProtectLongestConnected)
        self.maxInFlightRequests = max(1, maxInFlightRequests)
        self.requestTimeoutMilliseconds = max(1, requestTimeoutMilliseconds)
        self.maxQueuedPushes = max(1, maxQueuedPushes)
        json = JSONParser.Limits(maxLength: channel.maxMessageLength, maxDepth: maxJSONDepth)
    }
}
