/// The records peernode reads and writes in a pkarr zone (docs/PUBKY.md, "Records"):
///
///     <node> A / AAAA <address>              the node's addresses
///     _peernode.<node> SVCB 1 . port=<port>  its peer port (the zone itself is the endpoint)
///     _peernode.<identity> SVCB 0 <node>.    a Pubky identity naming the node key it certifies
///
/// Following pkarr's `design/endpoints.md`, an SVCB target that is a pkarr key is resolved
/// in turn; peernode follows one such hop (identity to node), never more.
public enum PeernodeRecords {
    public static let serviceLabel = "_peernode"

    /// An endpoint a packet names: a host (an IP literal from an A or AAAA record) and a port.
    public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
        public let host: String
        public let port: UInt16

        public init(host: String, port: UInt16) {
            self.host = host
            self.port = port
        }

        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    public static func serviceName(of pubky: Pubky) -> DNSName {
        DNSName(checkedLabels: [serviceLabel, pubky.z32])
    }

    /// The node's own packet: its addresses at the apex, its port, and `extra` records (the
    /// capability descriptor). Hosts that are not IP literals are left out: a pkarr zone
    /// names addresses, and a DNS name would need a resolver the client may not trust.
    public static func nodePacket(node: Pubky, hosts: [String], port: UInt16, ttl: UInt32,
                                  extra: [DNSRecord] = []) -> DNSPacket {
        let zone = SignedPacket.zone(of: node)
        var answers = hosts.compactMap { host in DNSRecordData.address(host).map { DNSRecord(name: zone, ttl: ttl, data: $0) } }
        answers.append(DNSRecord(name: serviceName(of: node), ttl: ttl, data: .svcb(.endpoint(port: port))))
        return DNSPacket(answers: answers + extra)
    }

    /// `existing` (the identity's packet as the relays hold it, if any) with its
    /// `_peernode` records replaced by one naming `node`: every other record the user has
    /// (a homeserver, other apps) is kept as it was.
    public static func delegationPacket(identity: Pubky, node: Pubky, ttl: UInt32, existing: SignedPacket?) -> DNSPacket {
        let name = serviceName(of: identity)
        let kept = existing?.packet.answers.filter { $0.name != name } ?? []
        let record = DNSRecord(name: name, ttl: ttl, data: .svcb(.alias(to: SignedPacket.zone(of: node))))
        return DNSPacket(answers: kept + [record], authority: existing?.packet.authority ?? [],
                         additional: existing?.packet.additional ?? [])
    }

    /// The node key `packet`'s `_peernode` AliasMode record names (a single-label target
    /// that is a pkarr key other than the packet's own), or nil. RFC 9460: when AliasMode is
    /// present, ServiceMode records of the name are ignored.
    public static func delegate(in packet: SignedPacket) -> Pubky? {
        for record in services(in: packet) where record.isAliasMode {
            guard record.target.labels.count == 1, let key = try? Pubky(parsing: record.target.labels[0]),
                  key != packet.pubky else { continue }
            return key
        }
        return nil
    }

    /// The endpoint `packet` names for itself: the lowest-priority ServiceMode `_peernode`
    /// record with target `.` and a port, and the first A (else AAAA) record at the apex.
    public static func endpoint(in packet: SignedPacket) -> Endpoint? {
        let service = services(in: packet).filter { !$0.isAliasMode && $0.target == .root && $0.port != nil }
            .min { $0.priority < $1.priority }
        guard let port = service?.port else { return nil }
        let apex = packet.packet.answers(named: packet.zone)
        let address = apex.first { if case .a = $0.data { return true } else { return false } }
            ?? apex.first { if case .aaaa = $0.data { return true } else { return false } }
        guard let host = address?.data.addressText else { return nil }
        return Endpoint(host: host, port: port)
    }

    private static func services(in packet: SignedPacket) -> [SVCBRecord] {
        packet.packet.answers(named: serviceName(of: packet.pubky)).compactMap { record in
            if case .svcb(let svcb) = record.data { return svcb }
            return nil
        }
    }
}
