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

    /// HASH(first || second) written over `digest` (hashLength bytes), which may be `first`
    /// itself: both inputs are taken into the hash state before the digest is written, so
    /// MixHash can replace h in place instead of allocating a new array for every token.
    func hash(into digest: UnsafeMutableRawBufferPointer, _ first: UnsafeRawBufferPointer,
              _ second: UnsafeRawBufferPointer) {
        stream(into: digest) { update in
            update(first)
            update(second)
        }
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
        precondition(parts.count <= 2, "Noise HMACs one or two parts")
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        return [UInt8](unsafeUninitializedCapacity: hashLength) { digest, count in
            hmac(into: UnsafeMutableRawBufferPointer(digest), key: key,
                 parts.first ?? empty, parts.count > 1 ? parts[1] : empty)
            count = hashLength
        }
    }

    /// HMAC-HASH(key, first || second) into `digest` (hashLength bytes).
    /// The padded key and the inner digest are stack scratch, wiped before return: 32 HMACs
    /// per handshake would otherwise allocate five buffers each.
    private func hmac(into digest: UnsafeMutableRawBufferPointer, key: UnsafeRawBufferPointer,
                      _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) {
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
                update(first)
                update(second)
            }
            // From the inner pad to the outer one: (k ^ 0x36) ^ (0x36 ^ 0x5c) = k ^ 0x5c.
            for index in 0..<blockLength { pad[index] ^= 0x36 ^ 0x5c }
            stream(into: digest) { update in
                update(UnsafeRawBufferPointer(pad))
                update(UnsafeRawBufferPointer(inner))
            }
        }
    }

    /// HKDF(chaining_key, input_key_material, num_outputs) from the Noise spec, section 4.3:
    /// two or three HASHLEN outputs, each an HMAC under a temporary key, written one after
    /// the other into `outputs` (num_outputs x HASHLEN bytes). The caller owns the outputs
    /// and wipes them; the temporary key is stack scratch wiped here.
    func hkdf(into outputs: UnsafeMutableRawBufferPointer, chainingKey: UnsafeRawBufferPointer,
              inputKeyMaterial: UnsafeRawBufferPointer) {
        let count = outputs.count / hashLength
        precondition((count == 2 || count == 3) && outputs.count == count * hashLength,
                     "Noise HKDF yields two or three outputs")
        withUnsafeTemporaryAllocation(byteCount: hashLength, alignment: 16) { tempKey in
            defer { sodium_memzero(tempKey.baseAddress!, tempKey.count) }
            hmac(into: tempKey, key: chainingKey, inputKeyMaterial, UnsafeRawBufferPointer(start: nil, count: 0))
            for index in 0..<count {
                // output_i = HMAC(temp_key, output_{i-1} || byte(i)), output_0 empty.
                let previous = UnsafeRawBufferPointer(rebasing: outputs[max(0, index - 1) * hashLength..<index * hashLength])
                var counter = UInt8(index + 1)
                withUnsafeBytes(of: &counter) { counterByte in
                    hmac(into: UnsafeMutableRawBufferPointer(rebasing: outputs[index * hashLength..<(index + 1) * hashLength]),
                         key: UnsafeRawBufferPointer(tempKey), previous, counterByte)
                }
            }
        }
    }
}
