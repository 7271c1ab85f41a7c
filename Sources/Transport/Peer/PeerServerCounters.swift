/// What `PeerServer` counted since it started, for an operator or a metrics endpoint to
/// read: refusals and evictions per budget, failed handshakes, and peers closed for
/// breaking the protocol.
public struct PeerServerCounters: Sendable, Equatable {
    public var accepted = 0
    public var refused: [ConnectionBudgetKind: Int] = [:]
    public var evicted: [ConnectionBudgetKind: Int] = [:]
    public var handshakesFailed = 0
    /// Authenticated peers closed for a broken rule or limit (`PeerCloseReason.failed`).
    public var protocolErrors = 0

    public init() {}
}
