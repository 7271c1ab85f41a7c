/// Where a client sends requests: the pool keeps connections per endpoint.
public struct HTTPEndpoint: Hashable, Sendable, CustomStringConvertible {
    public let host: String
    public let port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// The `Host` field value (RFC 9110 7.2): the port is left out when it is 80, and an
    /// IPv6 literal goes in brackets.
    var hostHeaderValue: String {
        let name = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return port == 80 ? name : "\(name):\(port)"
    }

    public var description: String { hostHeaderValue }
}
