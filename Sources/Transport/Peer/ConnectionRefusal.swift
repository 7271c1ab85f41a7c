/// Why an inbound connection was turned away: the budget that was full and nobody could
/// be evicted to make room (or the newcomer's own host, group or pubky was over its
/// share, which evicting someone else would not fix).
public struct ConnectionRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public let budget: ConnectionBudgetKind
    public let limit: Int

    public init(budget: ConnectionBudgetKind, limit: Int) {
        self.budget = budget
        self.limit = limit
    }

    public var description: String {
        switch budget {
        case .handshakes: return "already \(limit) handshakes in progress and none evictable; refused"
        case .handshakesPerHost: return "already \(limit) handshakes in progress from this IP; refused"
        case .connectionsPerHost: return "already \(limit) connections from this IP; refused"
        case .connectionsPerNetworkGroup: return "already \(limit) connections from this network group; refused"
        case .connectionsPerPubky: return "already \(limit) connections authenticated as this pubky; refused"
        case .peers: return "already serving \(limit) inbound peers, all protected from eviction; refused"
        }
    }
}
