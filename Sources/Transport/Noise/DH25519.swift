import Bitcoin
import CSodium

/// Curve25519 Diffie-Hellman (X25519, RFC 7748), the Noise "25519" DH functions.
public enum DH25519 {
    /// DHLEN: public keys, private keys and shared secrets are all 32 bytes.
    public static let keyLength = 32

    /// A key pair. The private key stays inside (wiped when the last copy goes) and is never
    /// part of `description`.
    public struct KeyPair: Sendable, CustomStringConvertible, CustomReflectable {
        public let publicKey: [UInt8]
        let privateKey: SecretBytes

        /// Derives the public key of a 32-byte private key (clamping is part of X25519).
        public init(privateKey: [UInt8]) throws(NoiseError) {
            guard privateKey.count == DH25519.keyLength else {
                throw .invalidKeyLength(which: "X25519 private key", expected: DH25519.keyLength, actual: privateKey.count)
            }
            self.init(privateKey: SecretBytes(copying: privateKey))
        }

        init(privateKey: SecretBytes) {
            requireSodium()
            var publicKey = [UInt8](repeating: 0, count: DH25519.keyLength)
            privateKey.withUnsafeUInt8Pointer { _ = crypto_scalarmult_curve25519_base(&publicKey, $0) }
            self.publicKey = publicKey
            self.privateKey = privateKey
        }

        /// For keys whose public half is already known (the identity's converted key).
        init(privateKey: SecretBytes, publicKey: [UInt8]) {
            self.privateKey = privateKey
            self.publicKey = publicKey
        }

        /// GENERATE_KEYPAIR(): a fresh private key from the system's secure random source.
        public static func generate() -> KeyPair {
            requireSodium()
            let privateKey = SecretBytes(count: DH25519.keyLength) { buffer in
                randombytes_buf(buffer.baseAddress!, buffer.count)
            }
            return KeyPair(privateKey: privateKey)
        }

        public var description: String { "X25519 key pair (public \(publicKey.hex))" }
        public var customMirror: Mirror { Mirror(self, children: ["publicKey": publicKey]) }
    }

    /// DH(key_pair, public_key). An all-zero result means the peer's key has low order and
    /// contributes nothing; the Noise spec allows rejecting it and we do, so a peer cannot
    /// force a known shared secret.
    static func agree(_ keyPair: KeyPair, _ publicKey: [UInt8]) throws(NoiseError) -> SecretBytes {
        requireSodium()
        guard publicKey.count == keyLength else { throw .invalidRemotePublicKey }
        var failed = false
        let shared = SecretBytes(count: keyLength) { output in
            keyPair.privateKey.withUnsafeUInt8Pointer { privateKey in
                failed = crypto_scalarmult_curve25519(output.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                                      privateKey, publicKey) != 0
            }
        }
        guard !failed else { throw .invalidRemotePublicKey }
        return shared
    }
}
