import Transport

/// Where Bitcoin Core's JSON-RPC listens: plain HTTP (Core serves no TLS; reach a remote
/// node through an SSH tunnel or a VPN), a host, a port and a path (`/` or
/// `/wallet/<name>`). Its `url` is what every error about the backend names.
public struct BitcoinCoreEndpoint: Hashable, Sendable, CustomStringConvertible {
    public let host: String
    public let port: Int
    public let path: String

    public init(host: String, port: Int, path: String = "/") {
        self.host = host
        self.port = port
        self.path = path.hasPrefix("/") ? path : "/" + path
    }

    /// Parses `http://host:port/path`, `host:port` or `[v6]:port`; the port is required
    /// because Core's default differs per network. Nil for https (Core has no TLS), a
    /// missing or out-of-range port, or an empty host.
    public init?(url: String) {
        var rest = Substring(url)
        if let colon = rest.firstIndex(of: ":"), rest[colon...].hasPrefix("://") {
            guard rest[..<colon].lowercased() == "http" else { return nil }
            rest = rest[colon...].dropFirst(3)
        }
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        let host: Substring
        let portText: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let afterHost = authority[authority.index(after: close)...]
            guard afterHost.hasPrefix(":") else { return nil }
            portText = afterHost.dropFirst()
        } else {
            guard let colon = authority.lastIndex(of: ":") else { return nil }
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty, let port = Int(portText), (1...65535).contains(port) else { return nil }
        self.init(host: String(host), port: port, path: path.isEmpty ? "/" : String(path))
    }

    /// Core's default RPC port for a chain (`main` 8332, `test` 18332, `testnet4` 48332,
    /// `signet` 38332, `regtest` 18443).
    public static func defaultPort(forChain chain: String) -> Int? {
        switch chain {
        case "main": return 8332
        case "test": return 18332
        case "testnet4": return 48332
        case "signet": return 38332
        case "regtest": return 18443
        default: return nil
        }
    }

    public var url: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return "http://\(name):\(port)\(path)"
    }

    public var description: String { url }

    var httpEndpoint: HTTPEndpoint { HTTPEndpoint(host: host, port: port) }
}
