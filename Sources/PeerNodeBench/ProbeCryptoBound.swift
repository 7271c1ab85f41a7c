import CSodium

/// The cryptographic floor of one probe, both sides (issue 21's bound for the route
/// figure): the libsodium calls one `PeerOfferProber` probe and the provider's answer make,
/// counted with uprobes on libsodium over a whole `router` run (docs/PERFORMANCE.md), timed
/// here back to back with nothing else:
/// - the Noise_XK handshake: 2 ephemeral keys, 6 X25519, 64 BLAKE2b hashes (HMAC-based
///   HKDF and MixHash, about two updates each), and the pubky check on each side (point
///   check and ed25519 -> X25519);
/// - 6 ChaCha20-Poly1305 encryptions and their decryptions: the handshake's three
///   payloads (empty, empty, the initiator's static key) and the transport messages;
/// - the provider's ed25519 signature of its Offer and the client's verification.
/// Everything else a probe costs (sockets, the event loop, JSON, the router) is what the
/// ratio charges.
struct ProbeCryptoBound {
    /// Plaintext sizes of the six AEAD operations per probe.
    static let aeadSizes = [0, 0, 32, 0, 351, 700]
    static let hashesPerProbe = 64
    static let offerBytes = 600

    /// Microseconds of CPU for one probe's cryptography, best of `rounds` runs of
    /// `iterations`; `pubkyChecks` 0 leaves out the two checks, which the node makes once
    /// per key and then looks up (`Pubky(publicKey:)` remembers the keys it validated).
    static func microseconds(iterations: Int = 300, rounds: Int = 3, pubkyChecks: Int = 2) -> Double {
        var best = Double.infinity
        for _ in 0..<rounds { best = min(best, timed { run(iterations, pubkyChecks: pubkyChecks) } / Double(iterations) * 1e6) }
        return best
    }

    private static func run(_ iterations: Int, pubkyChecks: Int) {
        var publicKeys = [[UInt8]](repeating: [UInt8](repeating: 0, count: 32), count: 2)
        var secretKeys = [[UInt8]](repeating: [UInt8](repeating: 0, count: 32), count: 2)
        var shared = [UInt8](repeating: 0, count: 32)
        var converted = [UInt8](repeating: 0, count: 32)
        var signingPublic = [UInt8](repeating: 0, count: 32)
        var signingSecret = [UInt8](repeating: 0, count: 64)
        _ = crypto_sign_keypair(&signingPublic, &signingSecret)
        let offer = [UInt8](repeating: 0x7b, count: offerBytes)
        var signature = [UInt8](repeating: 0, count: 64)
        let key = [UInt8](repeating: 1, count: 32), nonce = [UInt8](repeating: 0, count: 12)
        let block = [UInt8](repeating: 0x36, count: 128), data = [UInt8](repeating: 2, count: 64)
        var digest = [UInt8](repeating: 0, count: 64)
        // libsodium's 64-byte aligned state, as the node's own hash keeps it.
        let raw = UnsafeMutableRawPointer.allocate(byteCount: crypto_generichash_statebytes(), alignment: 64)
        defer { raw.deallocate() }
        let state = OpaquePointer(raw)
        // Every buffer made before the loop: the bound times the calls, not allocations.
        let largest = aeadSizes.max() ?? 0
        let plain = [UInt8](repeating: 3, count: largest)
        var sealed = [UInt8](repeating: 0, count: largest + 16)
        var opened = [UInt8](repeating: 0, count: max(1, largest))
        var sink: Int32 = 0
        for _ in 0..<iterations {
            for index in 0..<2 { sink &+= crypto_box_keypair(&publicKeys[index], &secretKeys[index]) }
            for index in 0..<6 { sink &+= crypto_scalarmult(&shared, secretKeys[index & 1], publicKeys[(index >> 1) & 1]) }
            for _ in 0..<pubkyChecks {
                sink &+= crypto_core_ed25519_is_valid_point(signingPublic)
                sink &+= crypto_sign_ed25519_pk_to_curve25519(&converted, signingPublic)
            }
            for _ in 0..<hashesPerProbe {
                sink &+= crypto_generichash_init(state, nil, 0, 64)
                sink &+= crypto_generichash_update(state, block, UInt64(block.count))
                sink &+= crypto_generichash_update(state, data, UInt64(data.count))
                sink &+= crypto_generichash_final(state, &digest, 64)
            }
            for size in aeadSizes {
                var sealedLength: UInt64 = 0, openedLength: UInt64 = 0
                sink &+= crypto_aead_chacha20poly1305_ietf_encrypt(&sealed, &sealedLength, plain, UInt64(size), nil, 0, nil, nonce, key)
                sink &+= crypto_aead_chacha20poly1305_ietf_decrypt(&opened, &openedLength, nil, sealed, sealedLength, nil, 0, nonce, key)
            }
            sink &+= crypto_sign_detached(&signature, nil, offer, UInt64(offer.count), signingSecret)
            sink &+= crypto_sign_verify_detached(signature, offer, UInt64(offer.count), signingPublic)
        }
        // Keeps the calls observable so the optimiser cannot drop them.
        if sink == Int32.min { print("") }
    }
}
