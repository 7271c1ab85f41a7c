/// Base58 with a 4-byte checksum (the first bytes of the payload's double SHA-256)
/// appended before encoding, so a mistyped address or key is caught before use.
public enum Base58Check {
    static let checksumSize = 4

    public static func encode(_ payload: [UInt8]) -> String {
        Base58.encode(payload + checksum(payload))
    }

    /// Decodes and verifies the checksum, returning the payload without it.
    public static func decode(_ string: some StringProtocol) throws -> [UInt8] {
        let bytes = try Base58.decode(string)
        guard bytes.count >= checksumSize else {
            throw BitcoinError.invalidAddress("base58 string is too short to hold a checksum")
        }
        let payload = Array(bytes.dropLast(checksumSize))
        guard checksum(payload) == Array(bytes.suffix(checksumSize)) else {
            throw BitcoinError.invalidAddress("base58 checksum mismatch: check the string for a typo")
        }
        return payload
    }

    private static func checksum(_ payload: [UInt8]) -> [UInt8] {
        Array(SHA256.doubleHash(payload).prefix(checksumSize))
    }
}
