import CSodium

/// The Noise hash functions, with the HMAC and HKDF the spec builds on them.
///
/// HMAC is built here from the hash (RFC 2104 as the Noise spec defines it) rather than
/// taken from libsodium, whose `crypto_auth_hmacsha512` is HMAC-SHA-512 and would give a
/// different result for BLAKE2b.
public enum NoiseHashFunction: String, Sendable, CaseIterable {
    case blake2b = "BLAKE2b"
    case sha256 = "SHA256"

    /// HASHLEN: 64 bytes for BLAKE2b-512, 32 for SHA-256.
    public var hashLength: Int {
        switch self {
        case .blake2b: return 64
        case .sha256: return 32
        }
    }

    /// BLOCKLEN, HMAC's pad width: 128 bytes for BLAKE2b, 64 for SHA-256.
    public var blockLength: Int {
        switch self {
        case .blake2b: return 128
        case .sha256: return 64
        }
    }

    /// HASH(parts[0] || parts[1] || ...), streamed so nothing is concatenated.
    func hash(_ parts: [UnsafeRawBufferPointer]) -> [UInt8] {
        requireSodium()
        var digest = [UInt8](repeating: 0, count: hashLength)
        switch self {
        case .blake2b:
            // libsodium asks for a 64-byte aligned state, which Swift cannot promise for a
            // local (the over-aligned C struct is only imported as an opaque pointer), so the
            // state lives in an explicitly aligned buffer.
            let size = crypto_generichash_statebytes()
            let raw = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
            defer {
                sodium_memzero(raw, size)
                raw.deallocate()
            }
            let state = OpaquePointer(raw)
            _ = crypto_generichash_init(state, nil, 0, hashLength)
            for part in parts where part.count > 0 {
                _ = crypto_generichash_update(state, part.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                              UInt64(part.count))
            }
            _ = crypto_generichash_final(state, &digest, hashLength)
        case .sha256:
            var state = crypto_hash_sha256_state()
            _ = crypto_hash_sha256_init(&state)
            for part in parts where part.count > 0 {
                _ = crypto_hash_sha256_update(&state, part.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                              UInt64(part.count))
            }
            _ = crypto_hash_sha256_final(&state, &digest)
            withUnsafeMutableBytes(of: &state) { sodium_memzero($0.baseAddress!, $0.count) }
        }
        return digest
    }

    func hash(_ data: [UInt8]) -> [UInt8] {
        data.withUnsafeBytes { hash([$0]) }
    }

    /// HMAC-HASH(key, parts[0] || parts[1] || ...).
    func hmac(key: UnsafeRawBufferPointer, _ parts: [UnsafeRawBufferPointer]) -> [UInt8] {
        var block = [UInt8](repeating: 0, count: blockLength)
        if key.count > blockLength {
            var hashedKey = hash([key])
            block.replaceSubrange(0..<hashedKey.count, with: hashedKey)
            wipe(&hashedKey)
        } else {
            block.replaceSubrange(0..<key.count, with: key)
        }
        var innerPad = block.map { $0 ^ 0x36 }
        var outerPad = block.map { $0 ^ 0x5c }
        wipe(&block)
        var inner = innerPad.withUnsafeBytes { hash([$0] + parts) }
        let outer = outerPad.withUnsafeBytes { pad in inner.withUnsafeBytes { hash([pad, $0]) } }
        wipe(&innerPad)
        wipe(&outerPad)
        wipe(&inner)
        return outer
    }

    /// HKDF(chaining_key, input_key_material, num_outputs) from the Noise spec, section 4.3:
    /// two or three HASHLEN outputs, each an HMAC under a temporary key.
    func hkdf(chainingKey: UnsafeRawBufferPointer, inputKeyMaterial: UnsafeRawBufferPointer,
              outputs: Int) -> [[UInt8]] {
        precondition(outputs == 2 || outputs == 3, "Noise HKDF yields two or three outputs")
        var tempKey = hmac(key: chainingKey, [inputKeyMaterial])
        defer { wipe(&tempKey) }
        return tempKey.withUnsafeBytes { key in
            var results: [[UInt8]] = []
            var previous: [UInt8] = []
            for index in 1...outputs {
                let counter: [UInt8] = [UInt8(index)]
                let next = previous.withUnsafeBytes { prev in
                    counter.withUnsafeBytes { hmac(key: key, [prev, $0]) }
                }
                results.append(next)
                previous = next
            }
            return results
        }
    }
}
