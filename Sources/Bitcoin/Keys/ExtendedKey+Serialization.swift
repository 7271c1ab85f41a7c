/// BIP32 serialization: 78 bytes (version, depth, parent fingerprint, child number, chain
/// code, key data) in Base58Check, as xprv/xpub (mainnet) or tprv/tpub (test networks).
extension ExtendedKey {
    public static let serializedByteCount = 78

    private static let versions: [(version: UInt32, network: Network, isPrivate: Bool)] = [
        (0x0488_ADE4, .mainnet, true), (0x0488_B21E, .mainnet, false),
        (0x0435_8394, .testnet, true), (0x0435_87CF, .testnet, false),
    ]

    /// The 4 version bytes this key serializes with.
    public var version: UInt32 {
        Self.versions.first { $0.network == network && $0.isPrivate == isPrivate }!.version
    }

    /// The 78-byte payload (without the Base58Check checksum).
    public var serialized: [UInt8] {
        var writer = ByteWriter(capacity: Self.serializedByteCount)
        writer.write(Self.bigEndian(version))
        writer.write(depth)
        writer.write(parentFingerprint)
        writer.write(Self.bigEndian(childNumber))
        writer.write(chainCode)
        if let privateKey {
            writer.write(UInt8(0))
            writer.write(privateKey.bytes)
        } else {
            writer.write(publicKey.compressed)
        }
        return writer.bytes
    }

    /// The Base58Check string (`xprv…`, `xpub…`, `tprv…`, `tpub…`).
    public var base58: String { ExtendedKeyBase58.encodeCheck(serialized) }

    /// Parses a Base58Check extended key.
    public init(base58 string: String) throws {
        guard let payload = ExtendedKeyBase58.decodeCheck(string) else {
            throw BitcoinError.invalidExtendedKey("not Base58Check, or the checksum is wrong")
        }
        try self.init(serialized: payload)
    }

    /// Parses a 78-byte payload with every check BIP32 lists: a known version whose kind
    /// (private/public) matches the key data, a private key in 1...n-1 after a 0x00 byte, a
    /// public key that is a curve point, and a depth-0 key with zero fingerprint and index.
    public init(serialized payload: [UInt8]) throws {
        guard payload.count == Self.serializedByteCount else {
            throw BitcoinError.invalidExtendedKey("an extended key is 78 bytes, got \(payload.count)")
        }
        let version = payload[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard let kind = Self.versions.first(where: { $0.version == version }) else {
            throw BitcoinError.invalidExtendedKey("unknown version bytes")
        }
        let depth = payload[4]
        let parentFingerprint = Array(payload[5..<9])
        let childNumber = payload[9..<13].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let chainCode = Array(payload[13..<45])
        let keyData = Array(payload[45..<78])

        let privateKey: PrivateKey?
        let publicKey: PublicKey
        switch (keyData[0], kind.isPrivate) {
        case (0x00, true):
            guard let key = try? PrivateKey(Array(keyData[1...])) else {
                throw BitcoinError.invalidExtendedKey("private key is zero or not below the curve order")
            }
            privateKey = key
            publicKey = key.publicKey
        case (0x02, false), (0x03, false):
            guard let key = try? PublicKey(keyData) else {
                throw BitcoinError.invalidExtendedKey("public key is not a point on secp256k1")
            }
            privateKey = nil
            publicKey = key
        case (0x00, false), (0x02, true), (0x03, true):
            throw BitcoinError.invalidExtendedKey("version says \(kind.isPrivate ? "private" : "public") but the key data is \(kind.isPrivate ? "public" : "private")")
        default:
            throw BitcoinError.invalidExtendedKey("key data starts with 0x\([keyData[0]].hex), not 00, 02 or 03")
        }
        if depth == 0 {
            guard parentFingerprint == [0, 0, 0, 0] else {
                throw BitcoinError.invalidExtendedKey("a depth-0 key has a non-zero parent fingerprint")
            }
            guard childNumber == 0 else {
                throw BitcoinError.invalidExtendedKey("a depth-0 key has a non-zero child number")
            }
        }
        self.init(network: kind.network, depth: depth, parentFingerprint: parentFingerprint, childNumber: childNumber,
                  chainCode: chainCode, privateKey: privateKey, publicKey: publicKey)
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16),
         UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
}
