import CSodium

extension MuSig2Session {
    /// BIP327 DeterministicSign: for the last signer to speak, who has already received
    /// every other signer's public nonce (aggregated as `aggregateOtherNonce`). Its nonce is
    /// derived from its secret key and everything being signed, so it keeps no secret nonce
    /// at all between messages: asked again with the same inputs it returns the same answer,
    /// and asked with anything different it derives a different nonce. That makes it the
    /// safe choice for a responder that may crash and be asked again.
    ///
    /// `randomness` (32 bytes) is optional extra protection, as in BIP327; with it, a repeat
    /// request gets a different (still safe) answer.
    public static func deterministicSign(secretKey: PrivateKey, aggregateOtherNonce: [UInt8],
                                         keyAggregation: MuSig2KeyAggregation, message: [UInt8],
                                         randomness: [UInt8]? = nil) throws
        -> (publicNonce: MuSig2PublicNonce, partialSignature: MuSig2PartialSignature) {
        var key = secretKey.bytes
        if let randomness {
            guard randomness.count == 32 else {
                throw BitcoinError.musig2(.invalidLength(what: "DeterministicSign randomness", expected: 32, got: randomness.count))
            }
            key = zip(key, TaggedHash.hash(tag: "MuSig/aux", randomness)).map { $0 ^ $1 }
        }
        var common = key + aggregateOtherNonce + keyAggregation.xOnlyPublicKey.bytes
            + (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(message.count) >> (8 * UInt64($0))) } + message
        defer {
            sodium_memzero(&key, key.count)
            sodium_memzero(&common, common.count)
        }
        let k1 = Secp256k1Scalar(reducing: TaggedHash.hash(tag: "MuSig/deterministic/nonce", common + [0]))
        let k2 = Secp256k1Scalar(reducing: TaggedHash.hash(tag: "MuSig/deterministic/nonce", common + [1]))
        let nonce = try MuSig2SecretNonce(k1: k1.bytes, k2: k2.bytes, publicKey: secretKey.publicKey)
        let publicNonce = nonce.publicNonce
        let otherNonce: MuSig2PublicNonce
        do {
            otherNonce = try MuSig2PublicNonce(aggregateOtherNonce)
        } catch {
            throw BitcoinError.musig2(.invalidContribution(signer: nil, .aggregateOtherNonce))
        }
        let session = MuSig2Session(keyAggregation: keyAggregation,
                                    aggregateNonce: MuSig2AggregateNonce(aggregating: [publicNonce, otherNonce]),
                                    message: message)
        return (publicNonce, try session.sign(nonce, with: secretKey))
    }
}
