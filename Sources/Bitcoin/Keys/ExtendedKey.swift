import CSecp256k1

/// A BIP32 extended key: a private or public key with the chain code that lets it derive
/// children, and where it sits in its tree (depth, parent fingerprint, child number).
///
/// `description` shows where the key sits but never its key bytes or chain code.
public struct ExtendedKey: Sendable, Equatable {
    /// Which version bytes the key serializes with: xprv/xpub or tprv/tpub.
    public enum Network: Sendable, Hashable {
        case mainnet
        /// Testnet, signet and regtest all use tprv/tpub.
        case testnet
    }

    public static let hardenedOffset = DerivationPath.hardenedOffset

    public let network: Network
    public let depth: UInt8
    /// The first 4 bytes of HASH160 of the parent's public key (zero for a master key).
    public let parentFingerprint: [UInt8]
    public let childNumber: UInt32
    public let chainCode: [UInt8]
    /// Present for an extended private key, nil for an extended public key.
    public let privateKey: PrivateKey?
    public let publicKey: PublicKey

    public var isPrivate: Bool { privateKey != nil }

    /// HASH160 of the compressed public key; BIP32 calls it the key identifier.
    public var identifier: [UInt8] { Hash160.hash(publicKey.compressed) }
    /// The first 4 bytes of `identifier`, which children record as their parent fingerprint.
    public var fingerprint: [UInt8] { Array(identifier.prefix(4)) }

    /// The BIP32 master key for a seed of 16 to 64 bytes.
    public init(seed: [UInt8], network: Network = .mainnet) throws {
        guard (16...64).contains(seed.count) else {
            throw BitcoinError.invalidExtendedKey("a BIP32 seed is 16 to 64 bytes, got \(seed.count)")
        }
        let i = HMACSHA512.authenticate(key: Array("Bitcoin seed".utf8), message: seed)
        // I_L of 0 or >= n (probability ~2^-127) makes the seed unusable, as BIP32 says.
        guard let key = try? PrivateKey(Array(i[..<32])) else {
            throw BitcoinError.invalidExtendedKey("this seed gives an invalid master key; use another seed")
        }
        self.init(network: network, depth: 0, parentFingerprint: [0, 0, 0, 0], childNumber: 0,
                  chainCode: Array(i[32...]), privateKey: key, publicKey: key.publicKey)
    }

    /// Assembles a key from checked parts (the parser and derivation check them first).
    init(network: Network, depth: UInt8, parentFingerprint: [UInt8], childNumber: UInt32,
         chainCode: [UInt8], privateKey: PrivateKey?, publicKey: PublicKey) {
        self.network = network
        self.depth = depth
        self.parentFingerprint = parentFingerprint
        self.childNumber = childNumber
        self.chainCode = chainCode
        self.privateKey = privateKey
        self.publicKey = publicKey
    }

    /// The extended public key with the same position and chain code (BIP32's N()).
    public var neutered: ExtendedKey {
        ExtendedKey(network: network, depth: depth, parentFingerprint: parentFingerprint, childNumber: childNumber,
                    chainCode: chainCode, privateKey: nil, publicKey: publicKey)
    }

    /// Child `index` (hardened if >= 0x80000000): CKDpriv for a private key, CKDpub for a
    /// public one, which cannot derive hardened children.
    public func derivedChild(_ index: UInt32) throws -> ExtendedKey {
        guard depth < UInt8.max else {
            throw BitcoinError.invalidExtendedKey("cannot derive below depth 255")
        }
        let hardened = index >= Self.hardenedOffset
        var data: [UInt8]
        if hardened {
            guard let privateKey else {
                throw BitcoinError.invalidExtendedKey("a public key cannot derive hardened child \(index - Self.hardenedOffset)'")
            }
            data = [0x00] + privateKey.bytes
        } else {
            data = publicKey.compressed
        }
        data += [UInt8(index >> 24), UInt8(truncatingIfNeeded: index >> 16),
                 UInt8(truncatingIfNeeded: index >> 8), UInt8(truncatingIfNeeded: index)]
        let i = HMACSHA512.authenticate(key: chainCode, message: data)
        let tweak = Array(i[..<32])
        // I_L >= n or a zero/infinite result (probability ~2^-127): BIP32 says skip to the
        // next index; we report it so the caller decides.
        let unusable = BitcoinError.invalidExtendedKey("child \(index) is invalid (BIP32: use the next index)")
        let childPrivate: PrivateKey?
        let childPublic: PublicKey
        if let privateKey {
            var secret = privateKey.bytes
            try Secp256k1Context.call(unusable) { secp256k1_ec_seckey_tweak_add($0, &secret, tweak) }
            let key = try PrivateKey(secret)
            childPrivate = key
            childPublic = key.publicKey
        } else {
            var point = publicKey.cPubkey
            try Secp256k1Context.call(unusable) { secp256k1_ec_pubkey_tweak_add($0, &point, tweak) }
            childPrivate = nil
            childPublic = PublicKey(validated: point)
        }
        return ExtendedKey(network: network, depth: depth + 1, parentFingerprint: fingerprint, childNumber: index,
                           chainCode: Array(i[32...]), privateKey: childPrivate, publicKey: childPublic)
    }

    /// The key at `path` below this one.
    public func derived(_ path: DerivationPath) throws -> ExtendedKey {
        try path.indices.reduce(self) { key, index in try key.derivedChild(index) }
    }
}

extension ExtendedKey: CustomStringConvertible {
    public var description: String {
        "ExtendedKey(\(isPrivate ? "private" : "public"), \(network), depth \(depth), "
            + "parent \(parentFingerprint.hex), child \(childNumber))"
    }
}
