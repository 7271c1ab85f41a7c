/// Where a pkarr relay answers: `http://host[:port][/path]`. The packet of a key is at
/// `<path>/<z32>`. Only plain HTTP for now: the relays this node uses in tests are the hub's
/// on loopback; an `https` relay is refused by name rather than spoken to in the clear.
public struct PkarrRelayURL: Sendable, Hashable, CustomStringConvertible {
    public let host: String
    public let port: Int
    /// The path before `/<z32>`, without a trailing slash (often empty).
    public let basePath: String

    public init(_ text: String) throws(PkarrError) {
        guard text.hasPrefix("http://") else {
            if text.hasPrefix("https://") {
                throw .invalidRelayURL("\(text) uses https, which this node does not speak to relays yet; use an http:// relay")
            }
            throw .invalidRelayURL("\(text) does not start with http://")
        }
        let rest = text.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" }
        var path = String(rest.dropFirst(authority.count))
        while path.hasSuffix("/") { path.removeLast() }
        guard !path.contains("?"), !path.contains("#") else { throw .invalidRelayURL("\(text) has a query or fragment") }
        var host = Substring(authority)
        var port = 80
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { throw .invalidRelayURL("\(text) has an unclosed [") }
            let after = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let parsed = Int(after.dropFirst()), (1...65535).contains(parsed) else {
                    throw .invalidRelayURL("\(text) has a bad port")
                }
                port = parsed
            }
        } else if let colon = host.lastIndex(of: ":") {
            guard let parsed = Int(host[host.index(after: colon)...]), (1...65535).contains(parsed) else {
                throw .invalidRelayURL("\(text) has a bad port")
            }
            port = parsed
            host = host[..<colon]
        }
        guard !host.isEmpty, !host.contains("@") else { throw .invalidRelayURL("\(text) has no host") }
        self.host = String(host)
        self.port = port
        basePath = path
    }

    /// The request target for `pubky`'s packet.
    public func target(for pubky: Pubky) -> String { basePath + "/" + pubky.z32 }

    public var description: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return "http://\(name)\(port == 80 ? "" : ":\(port)")\(basePath)"
    }
}
