/// Base58 as Bitcoin uses it: big-endian base-58 digits over the alphabet without
/// `0`, `O`, `I` and `l`, with each leading zero byte written as a leading `1`.
///
/// This is the raw encoding; addresses and keys use `Base58Check`, which adds a
/// checksum.
public enum Base58 {
    static let alphabet: [UInt8] = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".utf8)

    /// Digit value of each ASCII byte, or -1 for bytes outside the alphabet.
    private static let digitValues: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (value, character) in alphabet.enumerated() {
            table[Int(character)] = Int8(value)
        }
        return table
    }()

    public static func encode(_ bytes: [UInt8]) -> String {
        let zeros = bytes.prefix { $0 == 0 }.count
        // Little-endian base-58 digits of the number, grown as needed. log(256)/log(58) < 1.37.
        var digits = [UInt8]()
        digits.reserveCapacity(bytes.count * 137 / 100 + 1)
        for byte in bytes.dropFirst(zeros) {
            var carry = Int(byte)
            for index in digits.indices {
                carry += Int(digits[index]) << 8
                digits[index] = UInt8(carry % 58)
                carry /= 58
            }
            while carry > 0 {
                digits.append(UInt8(carry % 58))
                carry /= 58
            }
        }
        var out = [UInt8](repeating: alphabet[0], count: zeros)
        out.append(contentsOf: digits.reversed().map { alphabet[Int($0)] })
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes a base58 string. Whitespace is not skipped: an address pasted with
    /// spaces is an input error the user should see.
    public static func decode(_ string: some StringProtocol) throws -> [UInt8] {
        let characters = Array(string.utf8)
        let ones = characters.prefix { $0 == alphabet[0] }.count
        // Little-endian base-256 bytes of the number. log(58)/log(256) < 0.74.
        var bytes = [UInt8]()
        bytes.reserveCapacity(characters.count * 74 / 100 + 1)
        for (position, character) in characters.enumerated().dropFirst(ones) {
            let value = digitValues[Int(character)]
            guard value >= 0 else {
                throw BitcoinError.invalidAddress("character \(position + 1) is not a base58 character \(describe(character))")
            }
            var carry = Int(value)
            for index in bytes.indices {
                carry += Int(bytes[index]) * 58
                bytes[index] = UInt8(carry & 0xff)
                carry >>= 8
            }
            while carry > 0 {
                bytes.append(UInt8(carry & 0xff))
                carry >>= 8
            }
        }
        return [UInt8](repeating: 0, count: ones) + bytes.reversed()
    }

    /// Names an offending byte without echoing anything unprintable.
    private static func describe(_ character: UInt8) -> String {
        switch character {
        case 0x21...0x7e: return "('\(String(decoding: [character], as: UTF8.self))')"
        case 0x20: return "(a space)"
        default: return "(a control or non-ASCII byte)"
        }
    }
}
