import CSodium

/// The Noise SymmetricState: the chaining key ck, the handshake hash h, and the
/// CipherState that handshake payloads are encrypted with.
struct SymmetricState: ~Copyable, Sendable {
    let hashFunction: NoiseHashFunction
    private var cipher: CipherState
    private var chainingKey: SecretBytes
    private(set) var handshakeHash: [UInt8]

    /// InitializeSymmetric(protocol_name): h is the name zero-padded to HASHLEN if it fits,
    /// else HASH(name); ck starts equal to h; no cipher key yet.
    init(protocolName: String, hashFunction: NoiseHashFunction) {
        self.hashFunction = hashFunction
        let name = Array(protocolName.utf8)
        if name.count <= hashFunction.hashLength {
            handshakeHash = name + [UInt8](repeating: 0, count: hashFunction.hashLength - name.count)
        } else {
            handshakeHash = hashFunction.hash(name)
        }
        chainingKey = SecretBytes(copying: handshakeHash)
        cipher = CipherState()
    }

    var hasKey: Bool { cipher.hasKey }

    /// MixKey(ikm): ck, temp_k = HKDF(ck, ikm, 2); the cipher key is temp_k cut to 32 bytes
    /// (BLAKE2b's outputs are 64).
    mutating func mixKey(_ inputKeyMaterial: UnsafeRawBufferPointer) {
        let hashLength = hashFunction.hashLength
        let (newChainingKey, key) = withHKDF(inputKeyMaterial, outputs: 2) { outputs in
            (SecretBytes(copying: outputs[0..<hashLength]),
             SecretBytes(copying: outputs[hashLength..<hashLength + CipherState.keyLength]))
        }
        chainingKey = newChainingKey
        cipher.initializeKey(key)
    }

    /// MixHash(data): h = HASH(h || data).
    mutating func mixHash(_ data: UnsafeRawBufferPointer) {
        let hashFunction = self.hashFunction
        handshakeHash.withUnsafeMutableBytes { h in
            hashFunction.hash(into: h, UnsafeRawBufferPointer(h), data)
        }
    }

    /// MixKeyAndHash(ikm), used for PSKs: ck, temp_h, temp_k = HKDF(ck, ikm, 3); MixHash(temp_h);
    /// the cipher key is temp_k cut to 32 bytes.
    mutating func mixKeyAndHash(_ inputKeyMaterial: UnsafeRawBufferPointer) {
        let hashLength = hashFunction.hashLength
        let (newChainingKey, tempHash, key) = withHKDF(inputKeyMaterial, outputs: 3) { outputs in
            (SecretBytes(copying: outputs[0..<hashLength]), Array(outputs[hashLength..<2 * hashLength]),
             SecretBytes(copying: outputs[2 * hashLength..<2 * hashLength + CipherState.keyLength]))
        }
        chainingKey = newChainingKey
        tempHash.withUnsafeBytes { mixHash($0) }
        cipher.initializeKey(key)
    }

    /// EncryptAndHash(plaintext): encrypt with h as associated data, then mix the ciphertext in.
    mutating func encryptAndHash(_ plaintext: UnsafeRawBufferPointer) throws(NoiseError) -> [UInt8] {
        let associatedData = handshakeHash  // a copy, so h is not borrowed while the cipher mutates
        let ciphertext = try associatedData.withBytes { (ad) throws(NoiseError) in
            try cipher.encrypt(associatedData: ad, plaintext: plaintext)
        }
        ciphertext.withUnsafeBytes { mixHash($0) }
        return ciphertext
    }

    /// DecryptAndHash(ciphertext): decrypt with h as associated data, then mix the ciphertext in.
    mutating func decryptAndHash(_ ciphertext: UnsafeRawBufferPointer) throws(NoiseError) -> [UInt8] {
        let associatedData = handshakeHash
        let plaintext = try associatedData.withBytes { (ad) throws(NoiseError) in
            try cipher.decrypt(associatedData: ad, ciphertext: ciphertext)
        }
        mixHash(ciphertext)
        return plaintext
    }

    /// Split(): two CipherStates from HKDF(ck, empty, 2), keys cut to 32 bytes. The first
    /// carries initiator-to-responder messages, the second the other direction.
    consuming func split() -> SplitCiphers {
        let hashLength = hashFunction.hashLength
        let (first, second) = withHKDF(UnsafeRawBufferPointer(start: nil, count: 0), outputs: 2) { outputs in
            (SecretBytes(copying: outputs[0..<CipherState.keyLength]),
             SecretBytes(copying: outputs[hashLength..<hashLength + CipherState.keyLength]))
        }
        return SplitCiphers(initiatorToResponder: CipherState(key: first), responderToInitiator: CipherState(key: second))
    }

    /// HKDF(ck, ikm, outputs) into stack scratch that is wiped when `body` returns; `body`
    /// sees the outputs one after the other, HASHLEN bytes each, and copies what it keeps.
    private func withHKDF<Result>(_ inputKeyMaterial: UnsafeRawBufferPointer, outputs: Int,
                                  _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        let hashFunction = self.hashFunction
        return chainingKey.withUnsafeBytes { key in
            withUnsafeTemporaryAllocation(byteCount: outputs * hashFunction.hashLength, alignment: 16) { scratch in
                defer { sodium_memzero(scratch.baseAddress!, scratch.count) }
                hashFunction.hkdf(into: scratch, chainingKey: key, inputKeyMaterial: inputKeyMaterial)
                return body(UnsafeRawBufferPointer(scratch))
            }
        }
    }
}

/// The result of Split(), named by direction so the roles cannot be swapped by mistake.
struct SplitCiphers: ~Copyable, Sendable {
    var initiatorToResponder: CipherState
    var responderToInitiator: CipherState
}
