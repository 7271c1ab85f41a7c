/// A block's id: the double SHA-256 of its 80-byte header, kept in wire (internal) byte
/// order. Bitcoin shows it reversed, which `hex` does, as it does for txids.
public struct BlockHash: Hashable, Sendable, CustomStringConvertible {
    /// The 32 bytes as they appear in a header's previous-block field.
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) throws {
        // BitcoinError has no block case; a wrong length is reported as a short or long read.
        guard bytes.count >= 32 else { throw BitcoinError.truncated(what: "block hash (32 bytes)") }
        guard bytes.count == 32 else { throw BitcoinError.trailingBytes(what: "block hash", count: bytes.count - 32) }
        self.bytes = bytes
    }

    /// Parses the displayed (reversed) hex form, as RPCs and explorers print it.
    public init(hex: String) throws {
        guard let raw = [UInt8](hex: hex) else { throw BitcoinError.invalidHex }
        try self.init(bytes: raw.reversed())
    }

    /// The displayed (reversed) hex form.
    public var hex: String { Array(bytes.reversed()).hex }
    public var description: String { hex }

    /// The previous-block field of a genesis block.
    public static let zero = try! BlockHash(bytes: [UInt8](repeating: 0, count: 32))
}
