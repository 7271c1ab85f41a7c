/// The hash type that ends a signature and says which parts of the transaction it commits to.
///
/// Legacy and segwit v0 carry it as a 32-bit value in the preimage (only its low bits steer
/// the algorithm, but the whole value is hashed); taproot carries one byte and accepts only
/// the seven defined values.
public struct SighashType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Taproot only: commits like ALL, but the signature carries no hash-type byte (BIP341).
    public static let `default` = SighashType(rawValue: 0x00)
    public static let all = SighashType(rawValue: 0x01)
    public static let none = SighashType(rawValue: 0x02)
    public static let single = SighashType(rawValue: 0x03)
    /// The flag that commits to this input alone, combined with one of the above.
    public static let anyoneCanPay = SighashType(rawValue: 0x80)
    public static let allAnyoneCanPay = SighashType(rawValue: 0x81)
    public static let noneAnyoneCanPay = SighashType(rawValue: 0x82)
    public static let singleAnyoneCanPay = SighashType(rawValue: 0x83)

    /// The byte that follows a signature in a script or witness.
    public var byte: UInt8 { UInt8(truncatingIfNeeded: rawValue) }

    public var isAnyoneCanPay: Bool { rawValue & 0x80 != 0 }

    // Legacy and BIP143 decide NONE and SINGLE from the low five bits (Core masks with 0x1f),
    // so odd values such as 0x42 behave like NONE while 0x04 behaves like ALL.
    var legacyIsNone: Bool { rawValue & 0x1f == 0x02 }
    var legacyIsSingle: Bool { rawValue & 0x1f == 0x03 }

    /// Whether taproot accepts this value: 0x00...0x03 or 0x81...0x83 (BIP341).
    public var isValidForTaproot: Bool {
        rawValue <= 0x03 || (0x81...0x83).contains(rawValue)
    }

    /// Whether a legacy or segwit v0 signature with this value passes Core's STRICTENC /
    /// standardness check (ALL, NONE or SINGLE, optionally with ANYONECANPAY, one byte).
    /// Consensus itself accepts any value there.
    public var isDefinedForLegacy: Bool {
        let base = rawValue & ~UInt32(0x80)
        return (0x01...0x03).contains(base)
    }

    /// The outputs a taproot signature commits to: DEFAULT means ALL (BIP341 "output_type").
    var taprootOutputType: UInt32 { rawValue == 0 ? 0x01 : rawValue & 0x03 }

    /// Core's names (ALL, NONE|ANYONECANPAY, …), or the hex value for anything else.
    public var description: String {
        let names = ["DEFAULT", "ALL", "NONE", "SINGLE"]
        let base = rawValue & ~UInt32(0x80)
        guard base < 4, rawValue != 0x80 else { return "0x" + String(rawValue, radix: 16) }
        return names[Int(base)] + (isAnyoneCanPay ? "|ANYONECANPAY" : "")
    }
}
