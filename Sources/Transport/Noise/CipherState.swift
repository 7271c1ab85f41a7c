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
        let length = plaintext.count + (hasKey ? Self.tagLength : 0)
        // Written in place: zero-filling a buffer the cipher overwrites whole costs a pass
        // over every transport message.
        return try Self.makeBytes(count: length) { (output) throws(NoiseError) in
            try encrypt(associatedData: associatedData, plaintext: plaintext, into: output)
        }
    }

    /// EncryptWithAd into `output`, which must hold exactly the plaintext plus the tag (or
    /// the plaintext alone without a key), so a caller can put the ciphertext straight into
    /// a frame.
    mutating func encrypt(associatedData: UnsafeRawBufferPointer, plaintext: UnsafeRawBufferPointer,
                          into output: UnsafeMutableRawBufferPointer) throws(NoiseError) {
        guard let key else {
            precondition(output.count == plaintext.count, "output must match the plaintext")
            if plaintext.count > 0 { output.copyMemory(from: plaintext) }
            return
        }
        // Checked before use: nonce 2^64-1 is never used for a message.
        guard nonce != Self.reservedNonce else { throw .nonceExhausted }
        Self.seal(key: key, nonce: nonce, associatedData: associatedData, plaintext: plaintext, into: output)
        nonce += 1
    }

    /// DecryptWithAd(ad, ciphertext). On failure the counter stays where it was (as the
    /// spec requires) and the error says nothing about why.
    mutating func decrypt(associatedData: UnsafeRawBufferPointer, ciphertext: UnsafeRawBufferPointer) throws(NoiseError) -> [UInt8] {
        guard let key else { return Array(ciphertext) }
        guard nonce != Self.reservedNonce else { throw .nonceExhausted }
        guard ciphertext.count >= Self.tagLength else { throw .decryptionFailed }
        var status: Int32 = -1
        // Not zero-filled first: the cipher writes every byte, and on a bad tag libsodium
        // clears the output itself; it is wiped here all the same before it is dropped.
        var plaintext = [UInt8](unsafeUninitializedCapacity: ciphertext.count - Self.tagLength) { buffer, count in
            var plaintextLength: UInt64 = 0
            var nonceBytes = Self.nonceBytes(nonce)
            status = key.withUnsafeUInt8Pointer { keyPointer in
                crypto_aead_chacha20poly1305_ietf_decrypt(
                    buffer.baseAddress, &plaintextLength, nil,
                    ciphertext.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(ciphertext.count),
                    associatedData.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(associatedData.count),
                    &nonceBytes, keyPointer)
            }
            if status != 0 && buffer.count > 0 { sodium_memzero(buffer.baseAddress!, buffer.count) }
            count = buffer.count
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
        var output = [UInt8](repeating: 0, count: Self.keyLength + Self.tagLength)
        zeros.withUnsafeBytes { plaintext in
            output.withUnsafeMutableBytes { buffer in
                Self.seal(key: key, nonce: Self.reservedNonce, associatedData: UnsafeRawBufferPointer(start: nil, count: 0),
                          plaintext: plaintext, into: buffer)
            }
        }
        self.key = SecretBytes(copying: output.prefix(Self.keyLength))
        wipe(&output)
    }

    /// ENCRYPT(k, n, ad, plaintext) with libsodium's IETF ChaCha20-Poly1305, into `output`
    /// (plaintext.count + tagLength bytes).
    private static func seal(key: SecretBytes, nonce: UInt64, associatedData: UnsafeRawBufferPointer,
                             plaintext: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        precondition(output.count == plaintext.count + tagLength, "output must hold the ciphertext and its tag")
        var outputLength: UInt64 = 0
        var nonceBytes = nonceBytes(nonce)
        key.withUnsafeUInt8Pointer { keyPointer in
            _ = crypto_aead_chacha20poly1305_ietf_encrypt(
                output.baseAddress!.assumingMemoryBound(to: UInt8.self), &outputLength,
                plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(plaintext.count),
                associatedData.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(associatedData.count),
                nil, &nonceBytes, keyPointer)
        }
    }

    /// An array of `count` bytes that `fill` initialises whole, without zero-filling it first.
    static func makeBytes(count: Int, _ fill: (UnsafeMutableRawBufferPointer) throws(NoiseError) -> Void) throws(NoiseError) -> [UInt8] {
        var failure: NoiseError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(NoiseError) {
                try fill(UnsafeMutableRawBufferPointer(buffer))
                initialized = count
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return bytes
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
