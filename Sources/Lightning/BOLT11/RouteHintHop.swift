import Bitcoin

/// One hop of a private route in an `r` field: the channel from `nodeID` towards the
/// payee, with that channel's forwarding policy (BOLT 7 `channel_update` semantics).
/// Wire form: 33 + 8 + 4 + 4 + 2 = 51 bytes.
public struct RouteHintHop: Sendable, Hashable {
    static let byteCount = 51

    /// The node at the start of the channel.
    public let nodeID: PublicKey
    public let shortChannelID: ShortChannelID
    public let feeBaseMsat: UInt32
    public let feeProportionalMillionths: UInt32
    public let cltvExpiryDelta: UInt16

    public init(nodeID: PublicKey, shortChannelID: ShortChannelID, feeBaseMsat: UInt32,
                feeProportionalMillionths: UInt32, cltvExpiryDelta: UInt16) {
        self.nodeID = nodeID
        self.shortChannelID = shortChannelID
        self.feeBaseMsat = feeBaseMsat
        self.feeProportionalMillionths = feeProportionalMillionths
        self.cltvExpiryDelta = cltvExpiryDelta
    }

    /// The 51 wire bytes.
    var bytes: [UInt8] {
        nodeID.compressed + Self.bigEndian(shortChannelID.rawValue, count: 8)
            + Self.bigEndian(UInt64(feeBaseMsat), count: 4)
            + Self.bigEndian(UInt64(feeProportionalMillionths), count: 4)
            + Self.bigEndian(UInt64(cltvExpiryDelta), count: 2)
    }

    /// Reads one hop from exactly 51 bytes; nil when the node id is not a compressed
    /// point on the curve.
    init?(bytes: ArraySlice<UInt8>) {
        guard bytes.count == Self.byteCount else { return nil }
        let start = bytes.startIndex
        // 33 bytes parse only in the compressed form (02/03 prefix).
        guard let key = try? PublicKey(Array(bytes[start..<start + 33])) else { return nil }
        func number(_ offset: Int, _ count: Int) -> UInt64 {
            bytes[(start + offset)..<(start + offset + count)].reduce(0) { $0 << 8 | UInt64($1) }
        }
        self.init(nodeID: key,
                  shortChannelID: ShortChannelID(rawValue: number(33, 8)),
                  feeBaseMsat: UInt32(number(41, 4)),
                  feeProportionalMillionths: UInt32(number(45, 4)),
                  cltvExpiryDelta: UInt16(number(49, 2)))
    }

    private static func bigEndian(_ value: UInt64, count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(count - 1 - $0))) }
    }
}
