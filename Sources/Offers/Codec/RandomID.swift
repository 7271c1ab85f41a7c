import Bitcoin

/// Identifiers for offers, quotes, swaps and requests: 128 random bits in hex, so they
/// are unguessable (a quote id is not a capability, but guessing one should not even
/// find it) and never collide in practice.
public enum RandomID {
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for _ in 0..<2 {
            let word = generator.next() as UInt64
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return bytes.hex
    }
}
