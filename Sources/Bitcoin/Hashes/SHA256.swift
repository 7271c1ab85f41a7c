import CSodium

/// SHA-256 (FIPS 180-4), computed by libsodium.
public enum SHA256 {
    public static let digestSize = 32

    public static func hash(_ data: [UInt8]) -> [UInt8] {
        requireSodium()
        var digest = [UInt8](repeating: 0, count: digestSize)
        _ = crypto_hash_sha256(&digest, data, UInt64(data.count))
        return digest
    }

    /// SHA-256 applied twice, as Bitcoin uses for txids, block hashes and checksums.
    public static func doubleHash(_ data: [UInt8]) -> [UInt8] {
        hash(hash(data))
    }
}

/// An incremental SHA-256 for data that arrives in pieces (sighash preimages, tagged hashes).
public struct SHA256Hasher: Sendable {
    private var state = crypto_hash_sha256_state()

    public init() {
        requireSodium()
        crypto_hash_sha256_init(&state)
    }

    public mutating func update(_ data: [UInt8]) {
        _ = crypto_hash_sha256_update(&state, data, UInt64(data.count))
    }

    /// The digest of everything passed to `update` so far; the hasher itself is unchanged.
    public func finalize() -> [UInt8] {
        var copy = state
        var digest = [UInt8](repeating: 0, count: SHA256.digestSize)
        crypto_hash_sha256_final(&copy, &digest)
        return digest
    }
}
