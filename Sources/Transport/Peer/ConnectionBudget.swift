/// Which inbound connections a node keeps when hostile hosts try to take all of them: a
/// pure decision over connection descriptors, so the policy is tested without sockets.
///
/// Two moments are judged:
/// - `admitHandshake`, when a connection arrives (before any cryptography): the newcomer's
///   own IP and network group must be under their shares — refused otherwise, since
///   evicting someone else would not stop that host — and the handshakes-in-progress
///   budget, when full, makes room by evicting the oldest handshake of the largest
///   network group (a silent opener has stalled there longest).
/// - `admitPeer`, when its handshake proves a pubky: the pubky must be under its share,
///   and a full peer budget makes room by Bitcoin Core's rule of thumb — protect the
///   useful peers (marked protected, lowest latency, longest connected), then evict from
///   the largest network group the most idle peer. If everyone is protected the newcomer
///   is refused: peers that proved useful are worth more than an unknown one.
public struct ConnectionBudget: Sendable, Equatable {
    public var maxHandshakes: Int
    public var maxHandshakesPerHost: Int
    public var maxConnectionsPerHost: Int
    public var maxConnectionsPerNetworkGroup: Int
    public var maxConnectionsPerPubky: Int
    public var maxPeers: Int
    public var protectLowestLatency: Int
    public var protectLongestConnected: Int

    public init(limits: PeerLimits) {
        maxHandshakes = limits.maxHandshakes
        maxHandshakesPerHost = limits.maxHandshakesPerHost
        maxConnectionsPerHost = limits.maxConnectionsPerHost
        maxConnectionsPerNetworkGroup = limits.maxConnectionsPerNetworkGroup
        maxConnectionsPerPubky = limits.maxConnectionsPerPubky
        maxPeers = limits.maxInboundConnections
        protectLowestLatency = limits.evictionProtectLowestLatency
        protectLongestConnected = limits.evictionProtectLongestConnected
    }

    /// A connection from `host` arrived; `existing` are the connections open now.
    public func admitHandshake(from host: PeerHost?, among existing: [ConnectionDescriptor]) -> ConnectionVerdict {
        if let host {
            let sameHost = existing.filter { $0.host == host }
            if sameHost.count >= maxConnectionsPerHost {
                return .refuse(ConnectionRefusal(budget: .connectionsPerHost, limit: maxConnectionsPerHost))
            }
            if sameHost.filter({ !$0.isAuthenticated }).count >= maxHandshakesPerHost {
                return .refuse(ConnectionRefusal(budget: .handshakesPerHost, limit: maxHandshakesPerHost))
            }
            let group = host.networkGroup
            if existing.filter({ $0.host?.networkGroup == group }).count >= maxConnectionsPerNetworkGroup {
                return .refuse(ConnectionRefusal(budget: .connectionsPerNetworkGroup,
                                                 limit: maxConnectionsPerNetworkGroup))
            }
        }
        let handshakes = existing.filter { !$0.isAuthenticated }
        guard handshakes.count >= maxHandshakes else { return .admit }
        // Oldest first within the group: it has waited longest without finishing.
        guard let victim = Self.largestGroup(of: handshakes)?.min(by: { $0.acceptedAt < $1.acceptedAt }) else {
            return .refuse(ConnectionRefusal(budget: .handshakes, limit: maxHandshakes))
        }
        return .admitEvicting(id: victim.id, budget: .handshakes)
    }

    /// `newcomer` finished its handshake (its `pubky` is set); `existing` are the other
    /// connections open now.
    public func admitPeer(_ newcomer: ConnectionDescriptor, among existing: [ConnectionDescriptor])
        -> ConnectionVerdict {
        let peers = existing.filter(\.isAuthenticated)
        if let pubky = newcomer.pubky, peers.filter({ $0.pubky == pubky }).count >= maxConnectionsPerPubky {
            return .refuse(ConnectionRefusal(budget: .connectionsPerPubky, limit: maxConnectionsPerPubky))
        }
        guard peers.count >= maxPeers else { return .admit }
        guard let victim = evictionCandidate(among: peers) else {
            return .refuse(ConnectionRefusal(budget: .peers, limit: maxPeers))
        }
        return .admitEvicting(id: victim.id, budget: .peers)
    }

    /// The peer to evict, or nil when every one is protected.
    public func evictionCandidate(among peers: [ConnectionDescriptor]) -> ConnectionDescriptor? {
        var candidates = peers.filter { !$0.isProtected }
        // Fast peers are the useful ones to keep, and hard for an attacker to fake from
        // afar; peers connected long ago predate any attack that is filling us now.
        let fastest = candidates.filter { $0.latencyMilliseconds != nil }
            .sorted { ($0.latencyMilliseconds ?? 0, $0.acceptedAt) < ($1.latencyMilliseconds ?? 0, $1.acceptedAt) }
            .prefix(protectLowestLatency).map(\.id)
        candidates.removeAll { fastest.contains($0.id) }
        let oldest = candidates.sorted { ($0.acceptedAt, $0.id) < ($1.acceptedAt, $1.id) }
            .prefix(protectLongestConnected).map(\.id)
        candidates.removeAll { oldest.contains($0.id) }
        // The most idle of the largest group; among equally idle, the youngest.
        return Self.largestGroup(of: candidates)?.max {
            ($0.idleMilliseconds, $0.acceptedAt) < ($1.idleMilliseconds, $1.acceptedAt)
        }
    }

    /// The connections of the most crowded network group (connections without an IP
    /// form one group of their own); ties go to the group whose newest connection is
    /// newest, as in Bitcoin Core, since an attacker's group is the one still growing.
    static func largestGroup(of connections: [ConnectionDescriptor]) -> [ConnectionDescriptor]? {
        let groups = Dictionary(grouping: connections) { $0.host?.networkGroup }
        return groups.values.max { a, b in
            (a.count, a.map(\.acceptedAt).max() ?? 0) < (b.count, b.map(\.acceptedAt).max() ?? 0)
        }
    }
}
