/// The IP address a connection came from, without its port: the unit of the per-host
/// budgets. Two connections from one machine share a `PeerHost` whatever their ports.
public struct PeerHost: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes for IPv4 (IPv4-mapped IPv6 addresses included), 16 for IPv6.
    public let bytes: [UInt8]

    /// The host of a socket address. An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, what a
    /// dual-stack listener reports for an IPv4 peer) becomes the IPv4 address, so one host
    /// is one budget whichever socket family it arrived on.
    public init(_ address: SocketAddress) {
        let raw = address.addressBytes
        let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]
        if raw.count == 16, Array(raw.prefix(12)) == mappedPrefix {
            bytes = Array(raw.suffix(4))
        } else {
            bytes = raw
        }
    }

    /// A numeric IPv4 or IPv6 address (`127.0.0.2`, `::1`), or nil if `numeric` is not one.
    public init?(_ numeric: String) {
        guard let address = SocketAddress(numericHost: numeric, port: 0) else { return nil }
        self.init(address)
    }

    public var isIPv4: Bool { bytes.count == 4 }

    /// The network group: hosts in one /24 (IPv4) or /64 (IPv6) are likely one operator,
    /// so they share a budget, as Bitcoin Core's netgroups do. Loopback is not special:
    /// 127.0.0.2 and 127.0.0.3 share a group, 127.1.0.1 is another.
    public var networkGroup: NetworkGroup {
        NetworkGroup(prefix: Array(bytes.prefix(isIPv4 ? 3 : 8)))
    }

    public var description: String {
        if isIPv4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: bytes.count, by: 2).map {
            String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16)
        }.joined(separator: ":")
    }
}
