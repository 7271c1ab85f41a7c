/// A 256-bit proof-of-work target, held big-endian so that comparing byte arrays compares
/// the numbers. Decoded from the compact `nBits` form exactly as Core's
/// `arith_uint256::SetCompact` does.
public struct Target: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// 32 bytes, most significant first.
    public let bigEndianBytes: [UInt8]

    public init(bigEndianBytes: [UInt8]) {
        precondition(bigEndianBytes.count == 32, "a target is 32 bytes")
        self.bigEndianBytes = bigEndianBytes
    }

    /// A hash read as a number: block hashes are little-endian 256-bit integers.
    public init(littleEndianBytes: [UInt8]) {
        self.init(bigEndianBytes: littleEndianBytes.reversed())
    }

    /// Decodes compact `bits`: the top byte is a length in bytes, the low 23 bits the
    /// mantissa, bit 23 a sign. Nil when the value is negative or does not fit in 256 bits,
    /// the two cases Core's proof-of-work check refuses.
    public init?(bits: UInt32) {
        let size = Int(bits >> 24)
        let word = bits & 0x007f_ffff
        let negative = word != 0 && bits & 0x0080_0000 != 0
        let overflow = word != 0 && (size > 34 || (word > 0xff && size > 33) || (word > 0xffff && size > 32))
        guard !negative, !overflow else { return nil }
        var bytes = [UInt8](repeating: 0, count: 32)
        // The mantissa's three bytes sit `size` bytes from the least significant end; for
        // sizes under 3 the low bytes fall off, which is Core's right shift.
        let mantissa = [UInt8(word >> 16 & 0xff), UInt8(word >> 8 & 0xff), UInt8(word & 0xff)]
        for (i, byte) in mantissa.enumerated() where byte != 0 {
            let position = 32 - size + i
            if (0..<32).contains(position) { bytes[position] = byte }
        }
        self.init(bigEndianBytes: bytes)
    }

    public var isZero: Bool { bigEndianBytes.allSatisfy { $0 == 0 } }

    /// Regtest's `powLimit` (0x7fffff followed by zeros), the easiest target it allows.
    public static let regtestPowLimit = Target(bigEndianBytes: [0x7f, 0xff, 0xff] + [UInt8](repeating: 0, count: 29))

    public static func < (lhs: Target, rhs: Target) -> Bool {
        lhs.bigEndianBytes.lexicographicallyPrecedes(rhs.bigEndianBytes)
    }

    public var description: String { bigEndianBytes.hex }
}
