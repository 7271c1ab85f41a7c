import Bitcoin
import Transport

/// Typed reads of one setting. Each throws `ConfigError.invalidValue` naming the key,
/// the value, where it came from, what is wrong and what is allowed.
struct ConfigValue {
    let entry: ConfigEntry
    /// The key's documented allowed values, for messages.
    let allowed: String
    /// Secret values are left out of messages.
    let secret: Bool

    func invalid(_ problem: String, allowed: String? = nil) -> ConfigError {
        ConfigError(key: entry.key, value: secret ? nil : entry.value, origin: entry.origin,
                    problem: .invalidValue(problem: problem, allowed: allowed ?? self.allowed))
    }

    func nonEmpty() throws(ConfigError) -> String {
        guard !entry.value.isEmpty else { throw invalid("empty") }
        return entry.value
    }

    func bool() throws(ConfigError) -> Bool {
        switch entry.value {
        case "1": return true
        case "0": return false
        default: throw invalid("not 0 or 1")
        }
    }

    func integer(in range: ClosedRange<Int64>) throws(ConfigError) -> Int64 {
        let text = entry.value
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            throw invalid(text.hasPrefix("-") ? "negative" : "not a whole number")
        }
        guard let value = Int64(text), range.contains(value) else { throw invalid("out of range") }
        return value
    }

    func int(in range: ClosedRange<Int>) throws(ConfigError) -> Int {
        Int(try integer(in: Int64(range.lowerBound)...Int64(range.upperBound)))
    }

    func network() throws(ConfigError) -> Network {
        guard let network = Network(rawValue: entry.value) else { throw invalid("not a network this node knows") }
        return network
    }

    /// A rate in sat/vB with up to three decimals (`2`, `2.5`, `0.125`), as sat/kvB: exact,
    /// never through a Double.
    func feeRate(satPerKvB range: ClosedRange<Int64>) throws(ConfigError) -> FeeRateValue {
        let parts = entry.value.split(separator: ".", omittingEmptySubsequences: false)
        let digits: (Substring) -> Bool = { !$0.isEmpty && $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }
        guard parts.count <= 2, digits(parts[0]), parts.count == 1 || (digits(parts[1]) && parts[1].count <= 3) else {
            throw invalid(entry.value.hasPrefix("-") ? "negative" : "not a number of sat/vB with at most 3 decimals")
        }
        guard parts[0].count <= 9, let whole = Int64(parts[0]) else { throw invalid("out of range") }
        var fraction: Int64 = 0
        if parts.count == 2 {
            let padded = parts[1] + String(repeating: "0", count: 3 - parts[1].count)
            fraction = Int64(padded) ?? 0
        }
        let satPerKvB = whole * 1_000 + fraction
        guard range.contains(satPerKvB) else { throw invalid("out of range") }
        return FeeRateValue(satPerKvB: satPerKvB)
    }

    /// `host:port` or `[v6]:port`.
    func hostPort(ports: ClosedRange<Int>) throws(ConfigError) -> NodeConfig.HostPort {
        let text = entry.value
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw invalid("an IPv6 address needs the form [addr]:port")
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw invalid("no port (expected host:port)") }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            guard !host.contains(":") else { throw invalid("an IPv6 address needs the form [addr]:port") }
        }
        guard !host.isEmpty else { throw invalid("no host (expected host:port)") }
        guard Self.isHostText(host) else { throw invalid("the host has characters a host name cannot have") }
        guard let port = Int(portText), ports.contains(port) else { throw invalid("the port is not a number in \(ports.lowerBound) to \(ports.upperBound)") }
        return NodeConfig.HostPort(host: String(host), port: port)
    }

    func host() throws(ConfigError) -> String {
        let text = try nonEmpty()
        guard Self.isHostText(Substring(text)) else { throw invalid("the host has characters a host name cannot have") }
        return text
    }

    /// Letters, digits, `-`, `.`, `_`, and `:` for IPv6 literals.
    static func isHostText(_ text: Substring) -> Bool {
        text.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
        }
    }

    /// A path, made absolute against the data directory.
    func path(in datadir: String) throws(ConfigError) -> String {
        let text = try nonEmpty()
        guard !text.utf8.contains(0) else { throw invalid("contains a NUL byte") }
        return NodeConfig.path(datadir, text)
    }

    /// `<pubky>@host:port`.
    func extraProvider() throws(ConfigError) -> NodeConfig.ExtraProvider {
        let text = entry.value
        guard let at = text.firstIndex(of: "@") else { throw invalid("no '@' between the pubky and host:port") }
        let pubky: Pubky
        do {
            pubky = try Pubky(parsing: String(text[..<at]))
        } catch {
            throw invalid("the pubky is not valid (\(error))")
        }
        let address = ConfigValue(entry: ConfigEntry(key: entry.key, value: String(text[text.index(after: at)...]),
                                                     origin: entry.origin), allowed: allowed, secret: false)
        let hostPort = try address.hostPort(ports: 1...65535)
        return NodeConfig.ExtraProvider(pubky: pubky, host: hostPort.host, port: hostPort.port)
    }
}

/// A parsed fee rate before it becomes a `FeeRate` (whose init throws an untyped error).
struct FeeRateValue: Equatable {
    let satPerKvB: Int64
}
