import Transport

/// Someone the node pays or asks for offers: a pubky and the `host:port` its node listens
/// on, under a name the user picks. Only valid contacts can be constructed, so the store
/// never writes a malformed one.
///
/// The pubky is the identity the user added; `nodeKey` is the key its node proves in the
/// handshake and signs with: the pubky itself, or the node key its Pubky identity certifies
/// (docs/PUBKY.md, section 4). `resolved` says the address came from the contact's pkarr
/// packet and follows it; an address the user typed is an override kept as typed.
public struct SavedContact: Sendable, Equatable {
    public static let maxNameLength = 64
    /// A DNS name's limit; also covers any IPv4 or IPv6 literal.
    public static let maxHostLength = 253

    public let pubky: Pubky
    public let name: String
    public let host: String
    public let port: UInt16
    /// Unix seconds when first added; updating a contact keeps it.
    public let addedAt: Int64
    /// The key to dial and to check signatures against.
    public let nodeKey: Pubky
    /// The address is the one the contact's pkarr packet names (re-resolved when it moves).
    public let resolved: Bool

    public init(pubky: Pubky, name: String, host: String, port: Int, addedAt: Int64, nodeKey: Pubky? = nil,
                resolved: Bool = false) throws(ContactError) {
        try Self.validate(name: name)
        try Self.validate(host: host)
        guard (1...65535).contains(port) else { throw .invalidPort(port) }
        self.pubky = pubky
        self.name = name
        self.host = host
        self.port = UInt16(port)
        self.addedAt = addedAt
        self.nodeKey = nodeKey ?? pubky
        self.resolved = resolved
    }

    /// Parses `pubky` in any form `Pubky(parsing:)` accepts (bare, `pk:`, URL).
    public init(pubky text: String, name: String, host: String, port: Int, addedAt: Int64, nodeKey: Pubky? = nil,
                resolved: Bool = false) throws(ContactError) {
        let pubky: Pubky
        do {
            pubky = try Pubky(parsing: text)
        } catch {
            throw .invalidPubky(error.description)
        }
        try self.init(pubky: pubky, name: name, host: host, port: port, addedAt: addedAt, nodeKey: nodeKey, resolved: resolved)
    }

    /// Printable, no surrounding spaces (the CLI looks contacts up by name), bounded.
    private static func validate(name: String) throws(ContactError) {
        guard !name.isEmpty else { throw .invalidName("empty") }
        guard name.count <= maxNameLength else { throw .invalidName("longer than \(maxNameLength) characters") }
        guard name.unicodeScalars.allSatisfy({ !$0.properties.generalCategory.isControlOrFormat }) else {
            throw .invalidName("contains control characters")
        }
        guard name.first?.isWhitespace == false, name.last?.isWhitespace == false else {
            throw .invalidName("starts or ends with a space")
        }
    }

    /// A host name or IPv4 literal (letters, digits, `-`, `.`, `_`), or an IPv6 literal
    /// without brackets (hex digits, `:`, `.`, at least two colons, so `host:port` is not
    /// mistaken for one). Anything else (spaces, `/`, `@`, a port) is a typo to report now
    /// rather than a connection failure later.
    private static func validate(host: String) throws(ContactError) {
        guard !host.isEmpty else { throw .invalidHost("empty") }
        guard host.utf8.count <= maxHostLength else { throw .invalidHost("longer than \(maxHostLength) bytes") }
        let colons = host.utf8.count(where: { $0 == UInt8(ascii: ":") })
        if colons > 0 {
            guard colons >= 2, host.utf8.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else {
                throw .invalidHost("give the port separately; an IPv6 address goes without brackets")
            }
            return
        }
        let allowed = host.utf8.allSatisfy { byte in
            isHexDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
        }
        guard allowed else { throw .invalidHost("only letters, digits, '-', '.' and '_' are allowed") }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }
}

extension Unicode.GeneralCategory {
    fileprivate var isControlOrFormat: Bool {
        self == .control || self == .format || self == .lineSeparator || self == .paragraphSeparator
    }
}
