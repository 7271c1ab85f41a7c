import CSecp256k1

/// BIP341 key tweaking: a Taproot output key commits to its internal key and, when there
/// are script paths, to their Merkle root.
///
///     t = TaggedHash("TapTweak", internal_x || merkle_root)   (merkle_root omitted if none)
///     Q = P + t·G            (P = the internal key with even y)
///     d' = d + t  or  n - d + t   (d negated first when d·G has odd y)
public enum TaprootTweak {
    /// The 32-byte tweak t for an internal key and an optional 32-byte Merkle root.
    public static func tweak(internalKey: XOnlyPublicKey, merkleRoot: [UInt8]?) throws -> [UInt8] {
        if let merkleRoot, merkleRoot.count != 32 {
            throw BitcoinError.invalidKey("a Taproot Merkle root is 32 bytes, got \(merkleRoot.count)")
        }
        return TaggedHash.hash(tag: "TapTweak", internalKey.bytes + (merkleRoot ?? []))
    }
}

extension XOnlyPublicKey {
    /// The BIP341 output key Q for this internal key, and whether Q's full point has an odd
    /// y (the parity bit a script-path control block carries). Throws only if t >= n,
    /// which no one can arrange (it would take breaking SHA-256).
    public func tapTweaked(merkleRoot: [UInt8]?) throws -> (key: XOnlyPublicKey, parityOdd: Bool) {
        let tweak = try TaprootTweak.tweak(internalKey: self, merkleRoot: merkleRoot)
        var internalKey = cXOnly
        var output = secp256k1_pubkey()
        try Secp256k1Context.call(.invalidKey("Taproot tweak is out of range")) {
            secp256k1_xonly_pubkey_tweak_add($0, &output, &internalKey, tweak)
        }
        let full = PublicKey(validated: output)
        return (full.xOnlyPublicKey, full.hasOddY)
    }
}

extension PrivateKey {
    /// The secret key for key-path spending of the output whose internal key is this key's
    /// x-only public key: it signs (BIP340) for `xOnlyPublicKey.tapTweaked(merkleRoot:).key`.
    public func tapTweaked(merkleRoot: [UInt8]?) throws -> PrivateKey {
        try withKeypair { keypair in
            let tweak = try TaprootTweak.tweak(internalKey: xOnlyPublicKey, merkleRoot: merkleRoot)
            // keypair_xonly_tweak_add negates the secret first when the point has odd y,
            // exactly as BIP341's taproot_tweak_seckey does.
            try Secp256k1Context.call(.invalidKey("Taproot tweak is out of range")) {
                secp256k1_keypair_xonly_tweak_add($0, &keypair, tweak)
            }
            var secret = [UInt8](repeating: 0, count: PrivateKey.byteCount)
            Secp256k1Context.expect("secp256k1_keypair_sec") { secp256k1_keypair_sec($0, &secret, &keypair) }
            return try PrivateKey(secret)
        }
    }
}
