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
        var outputs = chainingKey.withUnsafeBytes {
            hashFunction.hkdf(chainingKey: $0, inputKeyMaterial: inputKeyMaterial, outputs: 2)
        }
        chainingKey = SecretBytes(taking: &outputs[0])
        cipher.initializeKey(SecretBytes(copying: outputs[1].prefix(CipherState.keyLength)))
        wipe(&outputs[1])
    }

    /// MixHash(data): h = HASH(h || data).
    mutating func mixHash(_ data: UnsafeRawBufferPointer) {
        handshakeHash = handshakeHash.withUnsafeBytes { hashFunction.hash([$0, data]) }
    }

    /// MixKeyAndHash(ikm), used for PSKs: ck, temp_h, temp_k = HKDF(ck, ikm, 3); MixHash(temp_h);
    /// the cipher key is temp_k cut to 32 bytes.
    mutating func mixKeyAndHash(_ inputKeyMaterial: UnsafeRawBufferPointer) {
        var outputs = chainingKey.withUnsafeBytes {
            hashFunction.hkdf(chainingKey: $0, inputKeyMaterial: inputKeyMaterial, outputs: 3)
        }
        chainingKey = SecretBytes(taking: &outputs[0])
        outputs[1].withUnsafeBytes { mixHash($0) }
        cipher.initializeKey(SecretBytes(copying: outputs[2].prefix(CipherState.keyLength)))
        wipe(&outputs[2])
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
        var outputs = chainingKey.withUnsafeBytes {
            hashFunction.hkdf(chainingKey: $0, inputKeyMaterial: UnsafeRawBufferPointer(start: nil, count: 0), outputs: 2)
        }
        let first = CipherState(key: SecretBytes(copying: outputs[0].prefix(CipherState.keyLength)))
        let second = CipherState(key: SecretBytes(copying: outputs[1].prefix(CipherState.keyLength)))
        wipe(&outputs[0])
        wipe(&outputs[1])
        return SplitCiphers(initiatorToResponder: first, responderToInitiator: second)
    }
}

/// The result of Split(), named by direction so the roles cannot be swapped by mistake.
struct SplitCiphers: ~Copyable, Sendable {
    var initiatorToResponder: CipherState
    var responderToInitiator: CipherState
}
