/// Numbers Core writes as doubles (`difficulty`, `verificationprogress`). UniValue prints
/// them with 16 significant digits; Swift's shortest round-trip form agrees for the values
/// the hub produces, except that an integral value is written without `.0` (`1`, not `1.0`).
enum CoreNumber {
    static func format(_ value: Double) -> String {
        var text = "\(value)"
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    /// Core's `GetDifficulty`: the difficulty-1 target divided by the block's target,
    /// computed from the compact bits as Core does (mantissa and exponent as doubles).
    static func difficulty(bits: UInt32) -> Double {
        var shift = Int((bits >> 24) & 0xff)
        var difficulty = Double(0x0000_ffff) / Double(bits & 0x00ff_ffff)
        while shift < 29 {
            difficulty *= 256.0
            shift += 1
        }
        while shift > 29 {
            difficulty /= 256.0
            shift -= 1
        }
        return difficulty
    }
}
