/// A transaction id: the double SHA-256 of the transaction without witnesses, kept in the
/// byte order it has on the wire. Bitcoin shows it reversed, which `hex` does.
public struct TransactionID: Hashable, Sendable, CustomStringConvertible {
    /// The 32 bytes as serialized in outpoints (internal order).
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) throws {
        guard bytes.count == 32 else { throw BitcoinError.invalidTransaction("a txid is 32 bytes, got \(bytes.count)") }
        self.bytes = bytes
    }

    /// Parses the displayed (reversed) hex form, as RPCs and explorers print it.
    public init(hex: String) throws {
        guard let raw = [UInt8](hex: hex), raw.count == 32 else {
            throw BitcoinError.invalidTransaction("a txid is 64 hex characters")
        }
        bytes = raw.reversed()
    }

    /// The displayed (reversed) hex form.
    public var hex: String { Array(bytes.reversed()).hex }
    public var description: String { hex }

    public static let zero = try! TransactionID(bytes: [UInt8](repeating: 0, count: 32))
}
