import CSecp256k1

/// An ECDSA signature over secp256k1, held as the 64-byte compact form r || s.
///
/// Signing uses libsecp256k1's default nonce function, RFC 6979 (deterministic: the same
/// key and digest always give the same signature), and always yields a low-S signature
/// (s <= n/2), the form Bitcoin's standardness rules require.
public struct ECDSASignature: Sendable, Hashable {
    public static let compactByteCount = 64

    /// r || s, 32 big-endian bytes each.
    public let compact: [UInt8]

    /// Parses the 64-byte r || s form. r and s must each be below n (they may be high-S).
    public init(compact: [UInt8]) throws {
        guard compact.count == Self.compactByteCount else {
            throw BitcoinError.invalidSignature("a compact ECDSA signature is 64 bytes, got \(compact.count)")
        }
        var signature = secp256k1_ecdsa_signature()
        try Secp256k1Context.call(.invalidSignature("compact ECDSA signature has r or s not below the curve order")) {
            secp256k1_ecdsa_signature_parse_compact($0, &signature, compact)
        }
        self.init(validated: signature)
    }

    /// Parses a strict DER encoding (as BIP66 requires; BER leniencies are refused). The
    /// sighash byte that follows a signature in a script is not part of it.
    public init(der: [UInt8]) throws {
        var signature = secp256k1_ecdsa_signature()
        try Secp256k1Context.call(.invalidSignature("not a strict DER-encoded ECDSA signature")) {
            secp256k1_ecdsa_signature_parse_der($0, &signature, der, der.count)
        }
        self.init(validated: signature)
    }

    init(validated signature: secp256k1_ecdsa_signature) {
        var signature = signature
        var out = [UInt8](repeating: 0, count: Self.compactByteCount)
        Secp256k1Context.expect("secp256k1_ecdsa_signature_serialize_compact") {
            secp256k1_ecdsa_signature_serialize_compact($0, &out, &signature)
        }
        compact = out
    }

    /// Signs a 32-byte digest (the caller hashes; Bitcoin signs sighashes).
    public static func sign(digest: [UInt8], with key: PrivateKey) throws -> ECDSASignature {
        guard digest.count == 32 else {
            throw BitcoinError.invalidSignature("ECDSA signs a 32-byte digest, got \(digest.count) bytes")
        }
        var signature = secp256k1_ecdsa_signature()
        // nil nonce function = secp256k1_nonce_function_rfc6979, libsecp256k1's default.
        try Secp256k1Context.call(.invalidSignature("ECDSA signing failed")) {
            secp256k1_ecdsa_sign($0, &signature, digest, key.bytes, nil, nil)
        }
        return ECDSASignature(validated: signature)
    }

    /// The DER encoding (at most 72 bytes), without a sighash byte.
    public var der: [UInt8] {
        var signature = cSignature
        var length = 72
        var out = [UInt8](repeating: 0, count: length)
        Secp256k1Context.expect("secp256k1_ecdsa_signature_serialize_der") {
            secp256k1_ecdsa_signature_serialize_der($0, &out, &length, &signature)
        }
        return Array(out[..<length])
    }

    /// True when s <= n/2.
    public var isLowS: Bool { normalizedS() == self }

    /// The same signature with s replaced by n - s when s is high; it verifies for the same
    /// key and digest, and is the only form `verify` accepts by default.
    public func normalizedS() -> ECDSASignature {
        var normalized = secp256k1_ecdsa_signature()
        var signature = cSignature
        // The result only says whether s had to change (1) or was already low (0); both are fine.
        _ = Secp256k1Context.holds { secp256k1_ecdsa_signature_normalize($0, &normalized, &signature) }
        return ECDSASignature(validated: normalized)
    }

    /// Checks the signature on a 32-byte digest. Like libsecp256k1 (and Bitcoin's policy),
    /// a high-S signature fails unless `allowHighS`, which normalizes it first.
    public func verify(digest: [UInt8], publicKey: PublicKey, allowHighS: Bool = false) -> Bool {
        guard digest.count == 32 else { return false }
        var signature = allowHighS ? normalizedS().cSignature : cSignature
        var pubkey = publicKey.cPubkey
        return Secp256k1Context.holds { secp256k1_ecdsa_verify($0, &signature, digest, &pubkey) }
    }

    var cSignature: secp256k1_ecdsa_signature {
        var signature = secp256k1_ecdsa_signature()
        Secp256k1Context.expect("secp256k1_ecdsa_signature_parse_compact") {
            secp256k1_ecdsa_signature_parse_compact($0, &signature, compact)
        }
        return signature
    }
}

extension ECDSASignature: CustomStringConvertible {
    public var description: String { "ECDSASignature(\(compact.hex))" }
}
