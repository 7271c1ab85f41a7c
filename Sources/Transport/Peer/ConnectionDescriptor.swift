/// What `ConnectionBudget` knows of one inbound connection: enough to count it against
/// the budgets and rank it for eviction, and nothing of its traffic.
public struct ConnectionDescriptor: Sendable, Equatable {
    public var id: UInt64
    /// Nil when the stream has no IP (an in-memory pair): it then counts only against the
    /// totals and the pubky budget.
    public var host: PeerHost?
    /// Nil while the handshake is in progress.
    public var pubky: Pubky?
    /// When the connection was accepted, in milliseconds on any monotonic clock; only the
    /// order matters (smaller: connected longer).
    public var acceptedAt: UInt64
    /// How long its handshake took: the latency measure we have for free. Nil in progress.
    public var latencyMilliseconds: UInt64?
    /// Time since the peer last sent a message (or since the handshake, if it never did).
    public var idleMilliseconds: UInt64
    /// Marked by the node's hook (a saved contact, a live swap): never evicted.
    public var isProtected: Bool

    public init(id: UInt64, host: PeerHost?, pubky: Pubky? = nil, acceptedAt: UInt64,
                latencyMilliseconds: UInt64? = nil, idleMilliseconds: UInt64 = 0, isProtected: Bool = false) {
        self.id = id
        self.host = host
        self.pubky = pubky
        self.acceptedAt = acceptedAt
        self.latencyMilliseconds = latencyMilliseconds
        self.idleMilliseconds = idleMilliseconds
        self.isProtected = isProtected
    }

    public var isAuthenticated: Bool { pubky != nil }
}
