/// The connection budgets `PeerServer` keeps; names the one that refused or evicted a
/// connection, in logs and counters.
public enum ConnectionBudgetKind: String, Sendable, Hashable, CaseIterable {
    /// Handshakes in progress, in all (`PeerLimits.maxHandshakes`).
    case handshakes
    /// Handshakes in progress from one IP (`PeerLimits.maxHandshakesPerHost`).
    case handshakesPerHost
    /// Connections from one IP, handshakes included (`PeerLimits.maxConnectionsPerHost`).
    case connectionsPerHost
    /// Connections from one /24 or /64 (`PeerLimits.maxConnectionsPerNetworkGroup`).
    case connectionsPerNetworkGroup
    /// Authenticated connections of one pubky (`PeerLimits.maxConnectionsPerPubky`).
    case connectionsPerPubky
    /// Authenticated inbound peers, in all (`PeerLimits.maxInboundConnections`).
    case peers
}
