/// Base58Check (Bitcoin's alphabet, 4-byte double-SHA-256 checksum), just for extended
/// keys. Kept private to this folder so it cannot clash with the address module's codec,
/// which was written at the same time; the two can be merged later.
enum ExtendedKeyBase58 {
    private static let alphabet: [UInt8] = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".utf8)
    private static let digitValues: [Int8] = {
        var table = [Int8](repeating: -1, count: 128)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = Int8(value) }
        return table
    }()

    static func encodeCheck(_ payload: [UInt8]) -> String {
        encode(payload + SHA256.doubleHash(payload).prefix(4))
    }

    /// The payload, or nil if the string is not Base58 or its checksum is wrong.
    static func decodeCheck(_ string: String) -> [UInt8]? {
        guard let data = decode(string), data.count >= 4 else { return nil }
        let payload = Array(data.dropLast(4))
        guard SHA256.doubleHash(payload).prefix(4).elementsEqual(data.suffix(4)) else { return nil }
        return payload
    }

    static func encode(_ bytes: [UInt8]) -> String {
        let leadingZeros = bytes.prefix { $0 == 0 }.count
        // Base-58 digits, least significant first, by repeated multiply-and-add.
        var digits = [UInt8]()
        for byte in bytes[leadingZeros...] {
            var carry = Int(byte)
            for i in digits.indices {
                carry += Int(digits[i]) << 8
                digits[i] = UInt8(carry % 58)
                carry /= 58
            }
            while carry > 0 {
                digits.append(UInt8(carry % 58))
                carry /= 58
            }
        }
        let characters = [UInt8](repeating: alphabet[0], count: leadingZeros) + digits.reversed().map { alphabet[Int($0)] }
        return String(decoding: characters, as: UTF8.self)
    }

    static func decode(_ string: String) -> [UInt8]? {
        let characters = Array(string.utf8)
        let leadingOnes = characters.prefix { $0 == alphabet[0] }.count
        // Bytes, least significant first.
        var bytes = [UInt8]()
        for character in characters[leadingOnes...] {
            guard character < 128, digitValues[Int(character)] >= 0 else { return nil }
            var carry = Int(digitValues[Int(character)])
            for i in bytes.indices {
                carry += Int(bytes[i]) * 58
                bytes[i] = UInt8(carry & 0xff)
                carry >>= 8
            }
            while carry > 0 {
                bytes.append(UInt8(carry & 0xff))
                carry >>= 8
            }
        }
        return [UInt8](repeating: 0, count: leadingOnes) + bytes.reversed()
    }
}
