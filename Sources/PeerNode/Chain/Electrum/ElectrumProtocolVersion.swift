/// An Electrum protocol version, `major.minor` (a third part, which no server uses for
/// the protocol, is ignored).
public struct ElectrumProtocolVersion: Comparable, Sendable, CustomStringConvertible {
    public let major: Int
    public let minor: Int

    /// 1.4 is the oldest the node accepts: it is the version that made `server.version`
    /// the mandatory first message, dropped the deprecated `blockchain.address.*` and
    /// UTXO-by-address calls, and whose `blockchain.block.header` and
    /// `blockchain.headers.subscribe` return raw headers (`hex`), which the node checks
    /// itself. Every maintained server serves it: ElectrumX 1.4-1.7, Fulcrum 1.4-1.5,
    /// Electrs 1.4.
    public static let minimum = ElectrumProtocolVersion(major: 1, minor: 4)
    /// The newest the node asks for. 1.7 replaced `blockchain.scripthash.*` by
    /// `blockchain.scriptpubkey.*` and added `blockchain.outpoint.subscribe`; the node
    /// needs neither (a lock's spends are in its script's history: docs/ELECTRUM.md,
    /// "`blockchain.outpoint.subscribe` (1.7)"), so every server from 1.4 gets the same calls.
    public static let maximum = ElectrumProtocolVersion(major: 1, minor: 6)

    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let major = Int(parts[0]), let minor = Int(parts[1]) else { return nil }
        self.init(major: major, minor: minor)
    }

    public var description: String { "\(major).\(minor)" }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }
}
