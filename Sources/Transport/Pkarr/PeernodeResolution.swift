/// Resolving a contact's pubky to the node to dial (docs/PUBKY.md, "Resolving"): the
/// identity's packet, then, when it names a node key, that key's packet. Every packet is a
/// verified `SignedPacket` chosen by `fetch` (the newest one known: `PkarrPacketBook`), so
/// only the identity's own signature can name its node and only the node's can name its
/// endpoint.
public struct PeernodeResolution: Sendable, Equatable {
    /// What the user added: the Pubky identity.
    public let identity: Pubky
    /// The key the Noise handshake must prove: the identity itself, or the node key its
    /// packet certifies.
    public let nodeKey: Pubky
    public let endpoint: PeernodeRecords.Endpoint
    public let identityPacket: SignedPacket
    /// The packet holding the endpoint (and the capability descriptor): the identity's own
    /// when it names no node key.
    public let nodePacket: SignedPacket

    /// How long the answer may be cached: the smallest TTL of the packets it came from.
    public var ttlSeconds: UInt32 {
        min(identityPacket.minimumTTL ?? 0, nodePacket.minimumTTL ?? 0)
    }

    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// No relay gave a verified packet for this key (each relay's answer).
        case noPacket(Pubky, String)
        /// The identity's packet has no `_peernode` record at all.
        case notAPeernode(Pubky)
        /// The node key's packet names no endpoint (no port, or no address).
        case noEndpoint(Pubky)

        public var description: String {
            switch self {
            case .noPacket(let key, let why): return "no pkarr packet for \(key.z32.prefix(8))… (\(why))"
            case .notAPeernode(let key): return "the pkarr packet of \(key.z32.prefix(8))… names no peernode (_peernode record)"
            case .noEndpoint(let key): return "the pkarr packet of \(key.z32.prefix(8))… names no address and port"
            }
        }
    }

    /// Looks up a key's newest verified packet, or why there is none.
    public typealias Fetch = @Sendable (Pubky) async -> Result<SignedPacket, Failure>

    public static func resolve(_ identity: Pubky, fetch: Fetch) async -> Result<PeernodeResolution, Failure> {
        let identityPacket: SignedPacket
        switch await fetch(identity) {
        case .success(let packet): identityPacket = packet
        case .failure(let failure): return .failure(failure)
        }
        if let node = PeernodeRecords.delegate(in: identityPacket) {
            let nodePacket: SignedPacket
            switch await fetch(node) {
            case .success(let packet): nodePacket = packet
            case .failure(let failure): return .failure(failure)
            }
            // One hop only: the node's packet must name its endpoint itself.
            guard let endpoint = PeernodeRecords.endpoint(in: nodePacket) else { return .failure(.noEndpoint(node)) }
            return .success(PeernodeResolution(identity: identity, nodeKey: node, endpoint: endpoint,
                                               identityPacket: identityPacket, nodePacket: nodePacket))
        }
        guard let endpoint = PeernodeRecords.endpoint(in: identityPacket) else {
            let named = !identityPacket.packet.answers(named: PeernodeRecords.serviceName(of: identity)).isEmpty
            return .failure(named ? .noEndpoint(identity) : .notAPeernode(identity))
        }
        return .success(PeernodeResolution(identity: identity, nodeKey: identity, endpoint: endpoint,
                                           identityPacket: identityPacket, nodePacket: identityPacket))
    }
}
