import CSecp256k1

/// A BIP340 Schnorr signature: 64 bytes, R.x || s.
public struct SchnorrSignature: Sendable, Hashable {
    public static let byteCount = 64

    public let bytes: [UInt8]

    /// Takes any 64 bytes: whether they are a valid signature is only known when verifying.
    public init(_ bytes: [UInt8]) throws {
        guard bytes.count == Self.byteCount else {
            throw BitcoinError.invalidSignature("a Schnorr signature is 64 bytes, got \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// Signs `message` (any length; Taproot signs 32-byte sighashes) following BIP340's
    /// default signing. `auxiliaryRandomness` (32 bytes) defaults to fresh random bytes, as
    /// BIP340 recommends against fault attacks; pass it explicitly only to reproduce vectors.
    /// The signature is verified before it is returned, as BIP340 advises.
    public static func sign(message: [UInt8], with key: PrivateKey,
                            auxiliaryRandomness: [UInt8]? = nil) throws -> SchnorrSignature {
        var aux = auxiliaryRandomness ?? Secp256k1Context.randomBytes(count: 32)
        guard aux.count == 32 else {
            throw BitcoinError.invalidSignature("BIP340 auxiliary randomness is 32 bytes, got \(aux.count)")
        }
        var signature = [UInt8](repeating: 0, count: byteCount)
        try key.withKeypair { keypair in
            try aux.withUnsafeMutableBytes { auxBuffer in
                // sign_custom (not sign32) so messages of any length are signed as BIP340 defines;
                // a nil noncefp selects secp256k1_nonce_function_bip340, with ndata = aux_rand.
                var extra = secp256k1_schnorrsig_extraparams(
                    magic: (0xda, 0x6f, 0xb3, 0x8c), noncefp: nil, ndata: auxBuffer.baseAddress)
                try Secp256k1Context.call(.invalidSignature("BIP340 signing failed")) {
                    secp256k1_schnorrsig_sign_custom($0, &signature, message, message.count, &keypair, &extra)
                }
            }
        }
        let result = SchnorrSignature(validated: signature)
        guard result.verify(message: message, publicKey: key.xOnlyPublicKey) else {
            throw BitcoinError.invalidSignature("BIP340 signature failed its own verification")
        }
        return result
    }

    private init(validated bytes: [UInt8]) { self.bytes = bytes }

    /// BIP340 verification of this signature on `message` under `publicKey`.
    public func verify(message: [UInt8], publicKey: XOnlyPublicKey) -> Bool {
        var xonly = publicKey.cXOnly
        return Secp256k1Context.holds {
            secp256k1_schnorrsig_verify($0, bytes, message, message.count, &xonly)
        }
    }

    /// BIP340 verification from raw bytes, as a script interpreter sees them: a public key
    /// that is not a curve point's x coordinate, or a signature of the wrong size, simply
    /// does not verify.
    public static func verify(signature: [UInt8], message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard let signature = try? SchnorrSignature(signature),
              let key = try? XOnlyPublicKey(publicKey) else { return false }
        return signature.verify(message: message, publicKey: key)
    }
}

extension SchnorrSignature: CustomStringConvertible {
    public var description: String { "SchnorrSignature(\(bytes.hex))" }
}
