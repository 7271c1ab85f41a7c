/// Bech32 (BIP173) and bech32m (BIP350): a human-readable part (HRP), the separator
/// `1`, then 5-bit data values and a 6-character BCH checksum, all in one case.
///
/// Works on 5-bit values; `convertBits` moves between those and bytes. Segwit rules
/// (witness version, program length, which checksum goes with which version) are in
/// `SegwitAddress`.
public enum Bech32 {
    /// The checksum variant: the two differ only in the constant the checksum is
    /// XORed with, so a string valid as one is never valid as the other.
    public enum Encoding: Sendable, Hashable, CaseIterable {
        /// BIP173, used by segwit v0 and BOLT11.
        case bech32
        /// BIP350, used by segwit v1 and later.
        case bech32m

        var checksumConstant: UInt32 {
            switch self {
            case .bech32: return 1
            case .bech32m: return 0x2bc8_30a3
            }
        }
    }

    /// A decoded string: the lowercase HRP, the 5-bit data values without the
    /// checksum, and the checksum variant that matched.
    public struct Decoded: Sendable, Hashable {
        public let hrp: String
        public let data: [UInt8]
        public let encoding: Encoding
    }

    /// BIP173's limit on the whole string. BOLT11 invoices exceed it, so `decode`
    /// lets callers raise it.
    public static let maxLength = 90
    static let checksumLength = 6
    static let separator = UInt8(ascii: "1")
    static let charset: [UInt8] = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)

    /// Value of each lowercase ASCII character in `charset`, or -1.
    private static let charsetValues: [Int8] = {
        var table = [Int8](repeating: -1, count: 128)
        for (value, character) in charset.enumerated() {
            table[Int(character)] = Int8(value)
        }
        return table
    }()

    /// Encodes `data` (values 0..31) under `hrp` (characters 33..126, stored lowercase).
    /// The result is lowercase. Both inputs come from code, not users, so a value out
    /// of range is a programming error.
    public static func encode(hrp: String, data: [UInt8], encoding: Encoding) -> String {
        let hrpBytes = Array(hrp.utf8)
        precondition(!hrpBytes.isEmpty && hrpBytes.allSatisfy { (33...126).contains($0) && !isUppercase($0) },
                     "bech32 HRP must be non-empty lowercase ASCII 33..126")
        precondition(data.allSatisfy { $0 < 32 }, "bech32 data values must be 5-bit")
        let values = data + checksum(hrp: hrpBytes, data: data, encoding: encoding)
        var out = hrpBytes
        out.append(separator)
        out.append(contentsOf: values.map { charset[Int($0)] })
        return String(decoding: out, as: UTF8.self)
    }

    public static func decode(_ string: some StringProtocol, maxLength: Int = Bech32.maxLength) throws -> Decoded {
        try decode(bytes: Array(string.utf8), maxLength: maxLength)
    }

    /// Decodes raw bytes, for callers (and test vectors) whose input may not be UTF-8.
    public static func decode(bytes: [UInt8], maxLength: Int = Bech32.maxLength) throws -> Decoded {
        guard bytes.count <= maxLength else {
            throw BitcoinError.invalidAddress("bech32 string is \(bytes.count) characters, longer than the limit of \(maxLength)")
        }
        if let position = bytes.firstIndex(where: { !(33...126).contains($0) }) {
            throw BitcoinError.invalidAddress("character \(position + 1) is a space, control or non-ASCII character")
        }
        // One case throughout, so a string read aloud or shown in a QR code (upper) is
        // the same string as the lowercase form and nothing else.
        if bytes.contains(where: isUppercase) && bytes.contains(where: isLowercase) {
            throw BitcoinError.invalidAddress("bech32 string mixes upper and lower case")
        }
        let lower = bytes.map { isUppercase($0) ? $0 | 0x20 : $0 }
        guard let separatorIndex = lower.lastIndex(of: separator) else {
            throw BitcoinError.invalidAddress("bech32 string has no '1' separator")
        }
        guard separatorIndex > 0 else {
            throw BitcoinError.invalidAddress("bech32 string has an empty human-readable part")
        }
        guard lower.count - separatorIndex - 1 >= checksumLength else {
            throw BitcoinError.invalidAddress("bech32 string is too short to hold a checksum")
        }
        let hrp = Array(lower[..<separatorIndex])
        var values = [UInt8]()
        values.reserveCapacity(lower.count - separatorIndex - 1)
        for position in (separatorIndex + 1)..<lower.count {
            let value = charsetValues[Int(lower[position])]
            guard value >= 0 else {
                throw BitcoinError.invalidAddress("character \(position + 1) is not a bech32 character ('1', 'b', 'i' and 'o' are excluded)")
            }
            values.append(UInt8(value))
        }
        let residue = polymod(expand(hrp) + values)
        guard let encoding = Encoding.allCases.first(where: { $0.checksumConstant == residue }) else {
            throw BitcoinError.invalidAddress("bech32 checksum mismatch: check the string for a typo")
        }
        return Decoded(hrp: String(decoding: hrp, as: UTF8.self),
                       data: Array(values.dropLast(checksumLength)),
                       encoding: encoding)
    }

    /// Regroups bits, most significant first: 8 -> 5 with `pad` to encode, 5 -> 8
    /// without to decode. Returns nil if a value does not fit in `from` bits or, when
    /// not padding, if the leftover bits are 5 or more or not all zero (BIP173: a
    /// string has exactly one decoding).
    public static func convertBits(_ values: [UInt8], from: Int, to: Int, pad: Bool) -> [UInt8]? {
        precondition((1...8).contains(from) && (1...8).contains(to))
        var accumulator: UInt32 = 0
        var bits = 0
        let mask: UInt32 = (1 << to) - 1
        // Only the bits not yet emitted matter; keeping fewer stops the shift overflowing.
        let keep: UInt32 = (1 << (from + to - 1)) - 1
        var out = [UInt8]()
        out.reserveCapacity(values.count * from / to + 1)
        for value in values {
            guard UInt32(value) >> from == 0 else { return nil }
            accumulator = (accumulator << from | UInt32(value)) & keep
            bits += from
            while bits >= to {
                bits -= to
                out.append(UInt8((accumulator >> bits) & mask))
            }
        }
        if pad {
            if bits > 0 { out.append(UInt8((accumulator << (to - bits)) & mask)) }
        } else if bits >= from || (accumulator << (to - bits)) & mask != 0 {
            return nil
        }
        return out
    }

    // MARK: checksum (BIP173 "Checksum")

    private static func checksum(hrp: [UInt8], data: [UInt8], encoding: Encoding) -> [UInt8] {
        let residue = polymod(expand(hrp) + data + [UInt8](repeating: 0, count: checksumLength)) ^ encoding.checksumConstant
        return (0..<checksumLength).map { UInt8((residue >> (5 * (5 - $0))) & 31) }
    }

    /// The HRP's high bits, a zero, then its low bits, so case-insensitive
    /// ASCII differences still change the checksum.
    private static func expand(_ hrp: [UInt8]) -> [UInt8] {
        hrp.map { $0 >> 5 } + [0] + hrp.map { $0 & 31 }
    }

    private static func polymod(_ values: [UInt8]) -> UInt32 {
        let generator: [UInt32] = [0x3b6a_57b2, 0x2650_8e6d, 0x1ea1_19fa, 0x3d42_33dd, 0x2a14_62b3]
        var check: UInt32 = 1
        for value in values {
            let top = check >> 25
            check = (check & 0x1ff_ffff) << 5 ^ UInt32(value)
            for index in 0..<5 where (top >> index) & 1 == 1 {
                check ^= generator[index]
            }
        }
        return check
    }

    private static func isUppercase(_ byte: UInt8) -> Bool { (0x41...0x5a).contains(byte) }
    private static func isLowercase(_ byte: UInt8) -> Bool { (0x61...0x7a).contains(byte) }
}
