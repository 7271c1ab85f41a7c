import CSodium

/// A node's identity, derived from its seed: an ed25519 signing key (its pubky is the
/// public half) and the X25519 form of the same key, used as the Noise static key.
///
/// Using one key for both means the pubky a contact dials is exactly what the Noise
/// handshake authenticates; no certificate links the two. The secret halves are never
/// part of `description`.
public struct NodeIdentity: Sendable, CustomStringConvertible, CustomReflectable {
    public let pubky: Pubky
    /// The Noise static key pair: libsodium's ed25519 -> X25519 conversion of both halves.
    public let noiseStaticKey: DH25519.KeyPair
    /// libsodium's 64-byte ed25519 secret key (seed followed by public key).
    private let signingKey: SecretBytes

    public init(seed: NodeSeed) {
        requireSodium()
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_sign_PUBLICKEYBYTES))
        let signingKey = SecretBytes(count: Int(crypto_sign_SECRETKEYBYTES)) { secretKey in
            seed.secret.withUnsafeUInt8Pointer { seedPointer in
                _ = crypto_sign_seed_keypair(&publicKey, secretKey.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                             seedPointer)
            }
        }
        let curvePrivate = SecretBytes(count: DH25519.keyLength) { curve in
            signingKey.withUnsafeUInt8Pointer { secretKey in
                _ = crypto_sign_ed25519_sk_to_curve25519(curve.baseAddress!.assumingMemoryBound(to: UInt8.self), secretKey)
            }
        }
        do {
            pubky = try Pubky(publicKey: publicKey)
        } catch {
            // crypto_sign_seed_keypair always yields a prime-order point.
            preconditionFailure("libsodium derived an invalid ed25519 public key")
        }
        self.signingKey = signingKey
        self.noiseStaticKey = DH25519.KeyPair(privateKey: curvePrivate, publicKey: pubky.noiseStaticKey)
    }

    /// The 32-byte ed25519 public key.
    public var publicKey: [UInt8] { pubky.publicKey }

    /// A detached ed25519 signature (64 bytes) over `message`.
    public func sign(_ message: [UInt8]) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: Int(crypto_sign_BYTES))
        signingKey.withUnsafeUInt8Pointer { secretKey in
            _ = crypto_sign_detached(&signature, nil, message, UInt64(message.count), secretKey)
        }
        return signature
    }

    public var description: String { "NodeIdentity(\(pubky))" }
    public var customMirror: Mirror { Mirror(self, children: ["pubky": pubky]) }
}
