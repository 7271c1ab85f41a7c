import CSodium

/// The Noise CipherState for ChaChaPoly: a 32-byte key k (possibly empty) and a 64-bit
/// counter n.
///
/// Non-copyable on purpose: a copy would carry the same key and counter, and encrypting
/// with both copies would reuse a nonce, which breaks ChaCha20-Poly1305 completely.
struct CipherState: ~Copyable, Sendable {
    static let keyLength = 32
    static let tagLength = Int(crypto_aead_chacha20poly1305_ietf_ABYTES)
    /// 2^64-1 is reserved by the spec (it is the nonce REKEY uses), so it is never sent with.
    static let reservedNonce = UInt64.max

    private var key: SecretBytes?
    private(set) var nonce: UInt64 = 0

    init(key: SecretBytes? = nil) {
        precondition(key == nil || key!.count == Self.keyLength)
        self.key = key
    }

    var hasKey: Bool { key != nil }

    /// InitializeKey(key): a new key always restarts the counter.
    mutating func initializeKey(_ newKey: SecretBytes?) {
        precondition(newKey == nil || newKey!.count == Self.keyLength)
        key = newKey
        nonce = 0
    }

    /// Test hook: puts the counter near its end so exhaustion can be tested without 2^64
    /// encryptions. Internal, reachable from tests through `@testable import` only.
    mutating func setNonceForTesting(_ value: UInt64) {
        nonce = value
    }

    /// EncryptWithAd(ad, plaintext): without a key the plaintext passes through unchanged.
    mutating func encrypt(associatedData: UnsafeRawBufferPointer, plaintext: UnsafeRawBufferPointer) throws(NoiseError) -> [UInt8] {
        guard let key else { return Array(plaintext) }
        // Checked before use: nonce 2^64-1 is never used for a message.
        guard nonce != Self.reservedNonce else { throw .nonceExhausted }
        let output = Self.seal(key: key, nonce: nonce, associatedData: associatedData, plaintext: plaintext)
        nonce += 1
        return output
    }

    /// DecryptWithAd(ad, ciphertext). On failure the counter stays where it was (as the
    /// spec requires) and the error says nothing about why.
    mutating func decrypt(associatedData: UnsafeRawBufferPointer, ciphertext: UnsafeRawBufferPointer) throws(NoiseError) -> [UInt8] {
        guard let key else { return Array(ciphertext) }
        guard nonce != Self.reservedNonce else { throw .nonceExhausted }
        guard ciphertext.count >= Self.tagLength else { throw .decryptionFailed }
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count - Self.tagLength)
        var plaintextLength: UInt64 = 0
        var nonceBytes = Self.nonceBytes(nonce)
        let status = key.withUnsafeUInt8Pointer { keyPointer in
            crypto_aead_chacha20poly1305_ietf_decrypt(
                &plaintext, &plaintextLength, nil,
                ciphertext.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(ciphertext.count),
                associatedData.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(associatedData.count),
                &nonceBytes, keyPointer)
        }
        guard status == 0 else {
            wipe(&plaintext)
            throw .decryptionFailed
        }
        nonce += 1
        return plaintext
    }

    /// Rekey(): k = the first 32 bytes of ENCRYPT(k, 2^64-1, empty, 32 zero bytes). The
    /// counter is left alone, as the spec says.
    mutating func rekey() {
        guard let key else { return }
        let zeros = [UInt8](repeating: 0, count: Self.keyLength)
        var output = zeros.withUnsafeBytes { plaintext in
            Self.seal(key: key, nonce: Self.reservedNonce, associatedData: UnsafeRawBufferPointer(start: nil, count: 0),
                      plaintext: plaintext)
        }
        self.key = SecretBytes(copying: output.prefix(Self.keyLength))
        wipe(&output)
    }

    /// ENCRYPT(k, n, ad, plaintext) with libsodium's IETF ChaCha20-Poly1305.
    private static func seal(key: SecretBytes, nonce: UInt64, associatedData: UnsafeRawBufferPointer,
                             plaintext: UnsafeRawBufferPointer) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: plaintext.count + tagLength)
        var outputLength: UInt64 = 0
        var nonceBytes = nonceBytes(nonce)
        key.withUnsafeUInt8Pointer { keyPointer in
            _ = crypto_aead_chacha20poly1305_ietf_encrypt(
                &output, &outputLength,
                plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(plaintext.count),
                associatedData.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(associatedData.count),
                nil, &nonceBytes, keyPointer)
        }
        return output
    }

    /// The 96-bit IETF nonce Noise specifies for ChaChaPoly: 32 zero bits, then n as a
    /// 64-bit little-endian integer.
    private static func nonceBytes(_ n: UInt64) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 12)
        for index in 0..<8 {
            bytes[4 + index] = UInt8(truncatingIfNeeded: n >> (8 * UInt64(index)))
        }
        return bytes
    }
}
