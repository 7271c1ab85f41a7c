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
        [UInt8](unsafeUninitializedCapacity: hashLength) { digest, count in
            stream(into: UnsafeMutableRawBufferPointer(digest)) { update in
                for part in parts { update(part) }
            }
            count = hashLength
        }
    }

    func hash(_ data: [UInt8]) -> [UInt8] {
        data.withUnsafeBytes { hash([$0]) }
    }

    /// Hashes whatever `feed` passes to its `update` into `digest` (hashLength bytes). The
    /// hash state lives on the stack and is wiped before it goes: a handshake hashes 64
    /// times, and a heap allocation for each showed in the router's profile.
    private func stream(into digest: UnsafeMutableRawBufferPointer,
                        _ feed: (_ update: (UnsafeRawBufferPointer) -> Void) -> Void) {
        requireSodium()
        precondition(digest.count == hashLength, "digest must be HASHLEN bytes")
        let output = digest.baseAddress!.assumingMemoryBound(to: UInt8.self)
        switch self {
        case .blake2b:
            // libsodium asks for a 64-byte aligned state, which Swift cannot promise for a
            // local (the over-aligned C struct is only imported as an opaque pointer), so the
            // state lives in an explicitly aligned scratch region.
            withUnsafeTemporaryAllocation(byteCount: crypto_generichash_statebytes(), alignment: 64) { raw in
                let state = OpaquePointer(raw.baseAddress!)
                _ = crypto_generichash_init(state, nil, 0, hashLength)
                feed { part in
                    guard part.count > 0 else { return }
                    _ = crypto_generichash_update(state, part.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                                  UInt64(part.count))
                }
                _ = crypto_generichash_final(state, output, hashLength)
                sodium_memzero(raw.baseAddress!, raw.count)
            }
        case .sha256:
            var state = crypto_hash_sha256_state()
            _ = crypto_hash_sha256_init(&state)
            withUnsafeMutablePointer(to: &state) { statePointer in
                feed { part in
                    guard part.count > 0 else { return }
                    _ = crypto_hash_sha256_update(statePointer, part.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                                  UInt64(part.count))
                }
                _ = crypto_hash_sha256_final(statePointer, output)
            }
            withUnsafeMutableBytes(of: &state) { sodium_memzero($0.baseAddress!, $0.count) }
        }
    }

    /// HMAC-HASH(key, parts[0] || parts[1] || ...).
    func hmac(key: UnsafeRawBufferPointer, _ parts: [UnsafeRawBufferPointer]) -> [UInt8] {
        // The padded key and the inner digest are stack scratch, wiped before return: 32
        // HMACs per handshake would otherwise allocate five buffers each.
        withUnsafeTemporaryAllocation(byteCount: blockLength + hashLength, alignment: 16) { scratch in
            let pad = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<blockLength])
            let inner = UnsafeMutableRawBufferPointer(rebasing: scratch[blockLength...])
            defer { sodium_memzero(scratch.baseAddress!, scratch.count) }
            pad.initializeMemory(as: UInt8.self, repeating: 0)
            if key.count > blockLength {
                stream(into: UnsafeMutableRawBufferPointer(rebasing: pad[0..<hashLength])) { update in update(key) }
            } else if key.count > 0 {
                UnsafeMutableRawBufferPointer(rebasing: pad[0..<key.count]).copyMemory(from: key)
            }
            for index in 0..<blockLength { pad[index] ^= 0x36 }
            stream(into: inner) { update in
                update(UnsafeRawBufferPointer(pad))
                for part in parts { update(part) }
            }
            // From the inner pad to the outer one: (k ^ 0x36) ^ (0x36 ^ 0x5c) = k ^ 0x5c.
            for index in 0..<blockLength { pad[index] ^= 0x36 ^ 0x5c }
            return [UInt8](unsafeUninitializedCapacity: hashLength) { digest, count in
                stream(into: UnsafeMutableRawBufferPointer(digest)) { update in
                    update(UnsafeRawBufferPointer(pad))
                    update(UnsafeRawBufferPointer(inner))
                }
                count = hashLength
            }
        }
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
