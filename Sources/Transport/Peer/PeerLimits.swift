/// The bounds the peer layer enforces, on top of each channel's. Breaking one closes that
/// peer's connection only (or refuses that one inbound connection).
public struct PeerLimits: Sendable, Equatable {
    public var channel: ChannelLimits
    /// Inbound connections served at once, counted from the first byte (handshakes
    /// included), so stalled handshakes cannot crowd out the limit's worth of real peers.
    public var maxInboundConnections: Int
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
                maxInFlightRequests: Int = 32, requestTimeoutMilliseconds: UInt64 = 30_000,
                maxQueuedPushes: Int = 64, maxJSONDepth: Int = 32) {
        self.channel = channel
        self.maxInboundConnections = max(1, maxInboundConnections)
        self.maxInFlightRequests = max(1, maxInFlightRequests)
        self.requestTimeoutMilliseconds = max(1, requestTimeoutMilliseconds)
        self.maxQueuedPushes = max(1, maxQueuedPushes)
        json = JSONParser.Limits(maxLength: channel.maxMessageLength, maxDepth: maxJSONDepth)
    }
}
