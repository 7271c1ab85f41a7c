import Transport

/// A saved contact: who (pubky, which the handshake proves), where (host and port), and
/// what the user calls them.
public struct Contact: Sendable, Hashable, CustomStringConvertible {
    public let pubky: Pubky
    public let host: String
    public let port: UInt16
    public let name: String

    public init(pubky: Pubky, host: String, port: UInt16, name: String) {
        self.pubky = pubky
        self.host = host
        self.port = port
        self.name = name
    }

    public var description: String { "\(name) (\(pubky.z32.prefix(8))… at \(host):\(port))" }
}
