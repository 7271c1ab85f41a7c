/// z-base-32 (Zooko O'Whielacronx's human-oriented base-32): 5-bit groups taken most
/// significant bit first, the alphabet below, no padding characters; the last partial group
/// is filled with zero bits. 32 bytes encode to 52 characters.
///
/// Decoding is strict: only lower-case alphabet characters, a length that some byte string
/// encodes to, and zero fill bits. So every byte string has exactly one accepted spelling.
public enum ZBase32 {
    static let alphabet: [UInt8] = Array("ybndrfg8ejkmcpqxot1uwisza345h769".utf8)

    /// Character -> 5-bit value, or 0xff for characters outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xff, count: 256)
        for (value, character) in alphabet.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        return table
    }()

    public static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 8 + 4) / 5)
        var accumulator: UInt32 = 0
        var bitCount = 0
        for byte in bytes {
            accumulator = (accumulator << 8) | UInt32(byte)
            bitCount += 8
            while bitCount >= 5 {
                bitCount -= 5
                output.append(alphabet[Int((accumulator >> UInt32(bitCount)) & 31)])
            }
        }
        if bitCount > 0 {
            output.append(alphabet[Int((accumulator << UInt32(5 - bitCount)) & 31)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    public static func decode(_ text: some StringProtocol) throws(IdentityError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count * 5 / 8)
        var accumulator: UInt32 = 0
        var bitCount = 0
        for (position, character) in text.utf8.enumerated() {
            let value = values[Int(character)]
            guard value != 0xff else { throw .invalidZBase32Character(position: position) }
            accumulator = (accumulator << 5) | UInt32(value)
            bitCount += 5
            if bitCount >= 8 {
                bitCount -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bitCount)))
            }
            accumulator &= (1 << UInt32(bitCount)) - 1
        }
        // Five or more left-over bits would be a whole character that encodes nothing; any
        // left-over bit set would be a second spelling of the same bytes.
        guard bitCount < 5, accumulator == 0 else { throw .nonCanonicalZBase32 }
        return output
    }
}
