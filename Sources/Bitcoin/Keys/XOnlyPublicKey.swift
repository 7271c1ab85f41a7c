import CSecp256k1

/// A BIP340 x-only public key: the 32-byte x coordinate of a point, standing for the
/// point with that x and an even y. Taproot output keys and Schnorr keys have this form.
public struct XOnlyPublicKey: Sendable, Hashable {
    public static let byteCount = 32

    /// The x coordinate, big-endian.
    public let bytes: [UInt8]

    /// Accepts 32 bytes that are the x coordinate of a point on the curve (so below the
    /// field size p and with x^3 + 7 a square).
    public init(_ bytes: [UInt8]) throws {
        guard bytes.count == Self.byteCount else {
            throw BitcoinError.invalidKey("an x-only public key is \(Self.byteCount) bytes, got \(bytes.count)")
        }
        var xonly = secp256k1_xonly_pubkey()
        try Secp256k1Context.call(.invalidKey("x-only public key is not the x coordinate of a curve point")) {
            secp256k1_xonly_pubkey_parse($0, &xonly, bytes)
        }
        self.bytes = bytes
    }

    /// Wraps bytes taken from a point libsecp256k1 has already validated.
    init(validatedBytes: [UInt8]) {
        bytes = validatedBytes
    }

    /// The full point this key stands for: the one with even y (0x02 || x).
    public var publicKey: PublicKey {
        PublicKey(validatedCompressed: [0x02] + bytes)
    }

    /// The libsecp256k1 form, re-parsed from the stored bytes (valid when stored).
    var cXOnly: secp256k1_xonly_pubkey {
        var xonly = secp256k1_xonly_pubkey()
        Secp256k1Context.expect("secp256k1_xonly_pubkey_parse") { secp256k1_xonly_pubkey_parse($0, &xonly, bytes) }
        return xonly
    }
}

extension PublicKey {
    /// Builds a key from compressed bytes known to be a valid point (an x-only key's lift).
    fileprivate init(validatedCompressed bytes: [UInt8]) {
        var pubkey = secp256k1_pubkey()
        Secp256k1Context.expect("secp256k1_ec_pubkey_parse") { secp256k1_ec_pubkey_parse($0, &pubkey, bytes, bytes.count) }
        self.init(validated: pubkey)
    }
}

extension XOnlyPublicKey: CustomStringConvertible {
    public var description: String { "XOnlyPublicKey(\(bytes.hex))" }
}
