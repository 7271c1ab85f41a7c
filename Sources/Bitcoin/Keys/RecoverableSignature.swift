import CSecp256k1

/// An ECDSA signature over secp256k1 with its recovery id: the 64-byte compact r || s
/// plus the 2 bits (0...3) that pick, among the points whose x is r (or r + n), the
/// nonce point R, so that the signer's public key can be computed from the signature
/// and the digest alone. BOLT11 invoices and Lightning's signed messages use this form.
///
/// The recovery id says which of up to four points R was: bit 0 is the parity of R's
/// y, bit 1 says x(R) = r + n (which happens with probability ~2^-128). Negating s
/// (the high-S/low-S twin) negates R, so it flips bit 0: a high-S signature keeps
/// verifying for the same key, but recovers it only with the flipped id.
public struct RecoverableSignature: Sendable, Hashable {
    public static let compactByteCount = 64
    public static let recoveryIDs: ClosedRange<UInt8> = 0...3

    /// r || s, 32 big-endian bytes each.
    public let compact: [UInt8]
    /// 0...3.
    public let recoveryID: UInt8

    /// Parses r || s and a recovery id. r and s must each be below n (high-S is kept as
    /// is); the id must be 0...3.
    public init(compact: [UInt8], recoveryID: UInt8) throws {
        guard compact.count == Self.compactByteCount else {
            throw BitcoinError.invalidSignature("a compact ECDSA signature is 64 bytes, got \(compact.count)")
        }
        // Checked here, not left to libsecp256k1: it treats an id above 3 as a caller bug
        // (ARG_CHECK) and calls its illegal-argument callback, which aborts the process.
        guard Self.recoveryIDs.contains(recoveryID) else {
            throw BitcoinError.invalidSignature("recovery id is \(recoveryID), it must be 0, 1, 2 or 3")
        }
        var signature = secp256k1_ecdsa_recoverable_signature()
        try Secp256k1Context.call(.invalidSignature("compact ECDSA signature has r or s not below the curve order")) {
            secp256k1_ecdsa_recoverable_signature_parse_compact($0, &signature, compact, Int32(recoveryID))
        }
        self.compact = compact
        self.recoveryID = recoveryID
    }

    /// Signs a 32-byte digest (RFC 6979 nonce, low-S, like `ECDSASignature.sign`) and
    /// records the recovery id.
    public static func sign(digest: [UInt8], with key: PrivateKey) throws -> RecoverableSignature {
        guard digest.count == 32 else {
            throw BitcoinError.invalidSignature("ECDSA signs a 32-byte digest, got \(digest.count) bytes")
        }
        var signature = secp256k1_ecdsa_recoverable_signature()
        // nil nonce function = secp256k1_nonce_function_rfc6979, libsecp256k1's default.
        try Secp256k1Context.call(.invalidSignature("ECDSA signing failed")) {
            secp256k1_ecdsa_sign_recoverable($0, &signature, digest, key.bytes, nil, nil)
        }
        var out = [UInt8](repeating: 0, count: compactByteCount)
        var recoveryID: Int32 = 0
        Secp256k1Context.expect("secp256k1_ecdsa_recoverable_signature_serialize_compact") {
            secp256k1_ecdsa_recoverable_signature_serialize_compact($0, &out, &recoveryID, &signature)
        }
        return try RecoverableSignature(compact: out, recoveryID: UInt8(recoveryID))
    }

    /// The public key whose signature this is on `digest`, computed from the signature
    /// with the recovery id as given (no guessing of other ids: a wrong id yields another
    /// key or none). Throws when no such key exists: r (or r + n) is not the x of a curve
    /// point, or r or s is zero.
    public func recoverPublicKey(digest: [UInt8]) throws -> PublicKey {
        guard digest.count == 32 else {
            throw BitcoinError.invalidSignature("public-key recovery needs a 32-byte digest, got \(digest.count) bytes")
        }
        var signature = cSignature
        var pubkey = secp256k1_pubkey()
        try Secp256k1Context.call(.invalidSignature("no public key can be recovered from this signature and recovery id")) {
            secp256k1_ecdsa_recover($0, &pubkey, &signature, digest)
        }
        return PublicKey(validated: pubkey)
    }

    /// The plain ECDSA signature (the recovery id dropped), for verification against a
    /// known key.
    public var ecdsaSignature: ECDSASignature {
        var plain = secp256k1_ecdsa_signature()
        var signature = cSignature
        Secp256k1Context.expect("secp256k1_ecdsa_recoverable_signature_convert") {
            secp256k1_ecdsa_recoverable_signature_convert($0, &plain, &signature)
        }
        return ECDSASignature(validated: plain)
    }

    /// The libsecp256k1 form, re-parsed from the stored fields (valid when stored).
    private var cSignature: secp256k1_ecdsa_recoverable_signature {
        var signature = secp256k1_ecdsa_recoverable_signature()
        Secp256k1Context.expect("secp256k1_ecdsa_recoverable_signature_parse_compact") {
            secp256k1_ecdsa_recoverable_signature_parse_compact($0, &signature, compact, Int32(recoveryID))
        }
        return signature
    }
}

extension RecoverableSignature: CustomStringConvertible {
    public var description: String { "RecoverableSignature(\(compact.hex), recoveryID: \(recoveryID))" }
}
