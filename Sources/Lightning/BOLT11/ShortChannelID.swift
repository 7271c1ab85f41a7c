/// A channel's position on chain (BOLT 7): the funding transaction's block height (3
/// bytes), its index in the block (3 bytes) and the funding output (2 bytes), packed
/// into 8 bytes, written `block x tx x output`.
public struct ShortChannelID: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Packs the three parts; nil when a part does not fit its width.
    public init?(block: UInt32, transaction: UInt32, output: UInt16) {
        guard block < 1 << 24, transaction < 1 << 24 else { return nil }
        rawValue = UInt64(block) << 40 | UInt64(transaction) << 16 | UInt64(output)
    }

    public var block: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 40) }
    public var transaction: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 16) & 0xff_ffff }
    public var output: UInt16 { UInt16(truncatingIfNeeded: rawValue) }

    /// `block`x`transaction`x`output`, the form Lightning tools print.
    public var description: String { "\(block)x\(transaction)x\(output)" }
}
