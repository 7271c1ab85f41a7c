import CSecp256k1

/// A secp256k1 public key (a point other than infinity), held in its compressed 33-byte
/// SEC1 form. Ordering is by those bytes, which is BIP327's KeySort order.
public struct PublicKey: Sendable, Hashable, Comparable {
    public static let compressedByteCount = 33
    public static let uncompressedByteCount = 65

    /// The compressed SEC1 encoding: 0x02 or 0x03 (even or odd y), then x.
    public let compressed: [UInt8]

    /// Parses a compressed (33-byte, 0x02/0x03) or uncompressed (65-byte, 0x04) SEC1 key.
    /// The "hybrid" 0x06/0x07 form, which libsecp256k1 would also take, is refused: it is
    /// non-standard and Bitcoin's policy rejects it.
    public init(_ bytes: [UInt8]) throws {
        switch (bytes.count, bytes.first) {
        case (Self.compressedByteCount, 0x02), (Self.compressedByteCount, 0x03), (Self.uncompressedByteCount, 0x04):
            break
        default:
            throw BitcoinError.invalidKey("a public key is 33 bytes starting 02/03 or 65 bytes starting 04")
        }
        var pubkey = secp256k1_pubkey()
        try Secp256k1Context.call(.invalidKey("public key is not a point on secp256k1")) {
            secp256k1_ec_pubkey_parse($0, &pubkey, bytes, bytes.count)
        }
        self.init(validated: pubkey)
    }

    /// Wraps a point libsecp256k1 has already produced or checked.
    init(validated pubkey: secp256k1_pubkey) {
        compressed = Self.serialize(pubkey, compressed: true)
    }

    /// SEC1 serialization: 33 bytes when `compressed`, else 65 bytes (0x04 || x || y).
    public func serialized(compressed wantCompressed: Bool = true) -> [UInt8] {
        wantCompressed ? compressed : Self.serialize(cPubkey, compressed: false)
    }

    /// True when the point's y coordinate is odd (the 0x03 prefix).
    public var hasOddY: Bool { compressed[0] == 0x03 }

    /// The BIP340 x-only key with the same x (which names this point or its negation).
    public var xOnlyPublicKey: XOnlyPublicKey {
        XOnlyPublicKey(validatedBytes: Array(compressed[1...]))
    }

    /// The point negated (same x, other y).
    public var negated: PublicKey {
        var pubkey = cPubkey
        Secp256k1Context.expect("secp256k1_ec_pubkey_negate") { secp256k1_ec_pubkey_negate($0, &pubkey) }
        return PublicKey(validated: pubkey)
    }

    /// P + t·G for a 32-byte scalar t < n. Throws if t is out of range or the result is
    /// the point at infinity.
    public func adding(tweak: [UInt8]) throws -> PublicKey {
        guard tweak.count == 32 else {
            throw BitcoinError.invalidKey("a tweak is 32 bytes, got \(tweak.count)")
        }
        var pubkey = cPubkey
        try Secp256k1Context.call(.invalidKey("tweak is not below the curve order, or the result is infinity")) {
            secp256k1_ec_pubkey_tweak_add($0, &pubkey, tweak)
        }
        return PublicKey(validated: pubkey)
    }

    /// The libsecp256k1 form, re-parsed from the stored bytes (which were valid when stored).
    var cPubkey: secp256k1_pubkey {
        var pubkey = secp256k1_pubkey()
        Secp256k1Context.expect("secp256k1_ec_pubkey_parse") {
            secp256k1_ec_pubkey_parse($0, &pubkey, compressed, compressed.count)
        }
        return pubkey
    }

    public static func < (lhs: PublicKey, rhs: PublicKey) -> Bool {
        lhs.compressed.lexicographicallyPrecedes(rhs.compressed)
    }

    private static func serialize(_ pubkey: secp256k1_pubkey, compressed: Bool) -> [UInt8] {
        var pubkey = pubkey
        var length = compressed ? compressedByteCount : uncompressedByteCount
        var out = [UInt8](repeating: 0, count: length)
        let flags = UInt32(compressed ? SECP256K1_EC_COMPRESSED : SECP256K1_EC_UNCOMPRESSED)
        Secp256k1Context.expect("secp256k1_ec_pubkey_serialize") {
            secp256k1_ec_pubkey_serialize($0, &out, &length, &pubkey, flags)
        }
        return out
    }
}

extension PublicKey: CustomStringConvertible {
    public var description: String { "PublicKey(\(compressed.hex))" }
}
