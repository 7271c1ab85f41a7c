/// The address prefix a host's connections are budgeted under together (see
/// `PeerHost.networkGroup`): the first 3 bytes of an IPv4 address, the first 8 of IPv6.
/// The length keeps an IPv4 group apart from any IPv6 one.
public struct NetworkGroup: Sendable, Hashable {
    public let prefix: [UInt8]
}
