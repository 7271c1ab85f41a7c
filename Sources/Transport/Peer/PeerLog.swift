/// Which side opened a connection.
public enum PeerDirection: String, Sendable, Equatable {
    case inbound
    case outbound
}

/// How a peer connection ended.
public enum PeerCloseReason: Sendable, Equatable, CustomStringConvertible {
    case closedByPeer
    case closedLocally
    /// A broken rule or limit, or a failed connection; the error says which.
    case failed(ChannelError)

    public var description: String {
        switch self {
        case .closedByPeer: return "closed by the peer"
        case .closedLocally: return "closed locally"
        case .failed(let error): return error.description
        }
    }

    /// What requests still waiting when the connection ended fail with.
    var error: ChannelError {
        if case .failed(let error) = self { return error }
        return .closed
    }
}

/// What the peer layer reports. Events name peers by pubky and failures by type; they
/// never carry message contents, request ids or key material.
public enum PeerLogEvent: Sendable, Equatable, CustomStringConvertible {
    case connected(peer: Pubky, direction: PeerDirection)
    case disconnected(peer: Pubky, direction: PeerDirection, reason: PeerCloseReason)
    /// The handshake failed, so the peer is not known (inbound) or not proven (outbound).
    case handshakeFailed(direction: PeerDirection, error: ChannelError)
    /// An inbound connection turned away because a budget was full (`host` is its IP, when
    /// known; `peer` its pubky, when refused after the handshake).
    case inboundRefused(host: PeerHost?, peer: Pubky?, refusal: ConnectionRefusal)
    /// An inbound connection closed to make room for a newcomer under `budget`.
    case evicted(host: PeerHost?, peer: Pubky?, budget: ConnectionBudgetKind)
    /// A reply came after its request had timed out or been cancelled.
    case lateReplyDropped(peer: Pubky)
    /// Our request handler's reply could not be sent (too large, not an envelope, closed).
    case replyNotSent(peer: Pubky, error: ChannelError)

    public var description: String {
        switch self {
        case .connected(let peer, let direction):
            return "peer \(peer) connected (\(direction.rawValue))"
        case .disconnected(let peer, let direction, let reason):
            return "peer \(peer) disconnected (\(direction.rawValue)): \(reason)"
        case .handshakeFailed(let direction, let error):
            return "\(direction.rawValue) handshake failed: \(error)"
        case .inboundRefused(let host, let peer, let refusal):
            return "inbound connection from \(Self.name(host, peer)) refused: \(refusal)"
        case .evicted(let host, let peer, let budget):
            return "evicted \(Self.name(host, peer)) to make room (\(budget.rawValue) budget full)"
        case .lateReplyDropped(let peer):
            return "dropped a late reply from \(peer)"
        case .replyNotSent(let peer, let error):
            return "reply to \(peer) not sent: \(error)"
        }
    }

    private static func name(_ host: PeerHost?, _ peer: Pubky?) -> String {
        let parts = [host?.description, peer?.description].compactMap { $0 }
        return parts.isEmpty ? "an unknown peer" : parts.joined(separator: " ")
    }
}

/// Where peer events go: the daemon's log, or a test's capture. Called from any task, so
/// the sink must be thread-safe and quick.
public struct PeerLog: Sendable {
    private let sink: @Sendable (PeerLogEvent) -> Void

    public init(_ sink: @escaping @Sendable (PeerLogEvent) -> Void) {
        self.sink = sink
    }

    /// Discards everything.
    public static let silent = PeerLog { _ in }

    public func callAsFunction(_ event: PeerLogEvent) {
        sink(event)
    }
}
