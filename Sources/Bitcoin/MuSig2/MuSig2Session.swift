/// One BIP327 signing session: the (tweaked) key aggregation, the aggregate nonce and the
/// message, and the values every signer derives from them (GetSessionValues): the nonce
/// coefficient b, the final nonce R and the BIP340 challenge e. Sign, PartialSigVerify and
/// PartialSigAgg all run on it, so the three can never disagree about what is being signed.
public struct MuSig2Session: Sendable {
    public let keyAggregation: MuSig2KeyAggregation
    public let aggregateNonce: MuSig2AggregateNonce
    public let message: [UInt8]
    /// b = H_noncecoef(aggnonce || xbytes(Q) || m).
    let nonceCoefficient: Secp256k1Scalar
    /// R = R'1 + b·R'2, or G when that is infinity (so that no party can force an invalid R).
    let finalNonce: PublicKey
    /// e = H_challenge(xbytes(R) || xbytes(Q) || m), as BIP340 verification computes it.
    let challenge: Secp256k1Scalar

    public init(keyAggregation: MuSig2KeyAggregation, aggregateNonce: MuSig2AggregateNonce, message: [UInt8]) {
        let q = keyAggregation.xOnlyPublicKey.bytes
        let b = Secp256k1Scalar(reducing: TaggedHash.hash(tag: "MuSig/noncecoef", aggregateNonce.bytes + q + message))
        let r = CurvePoint.sum([aggregateNonce.first, CurvePoint.multiply(aggregateNonce.second, by: b)])
            ?? CurvePoint.generatorPoint
        self.keyAggregation = keyAggregation
        self.aggregateNonce = aggregateNonce
        self.message = message
        nonceCoefficient = b
        finalNonce = r
        challenge = Secp256k1Scalar(reducing: TaggedHash.hash(tag: "BIP0340/challenge", r.xOnlyPublicKey.bytes + q + message))
    }

    /// BIP327 Sign: this signer's partial signature, using up `nonce` (it is consumed and
    /// erased whatever happens, so a failed attempt cannot be retried with the same nonce).
    /// The result is checked with PartialSigVerify before it is returned, as BIP327
    /// recommends, so a fault cannot leak a bad signature.
    public func sign(_ nonce: consuming MuSig2SecretNonce, with secretKey: PrivateKey) throws -> MuSig2PartialSignature {
        let publicNonce = nonce.publicNonce
        let nonceKey = nonce.publicKey
        let scalars = nonce.withScalars { ($0, $1) }
        _ = consume nonce   // erased now, before any arithmetic can fail
        guard var k1 = scalars.0 else { throw BitcoinError.musig2(.secretNonceOutOfRange(part: 1)) }
        guard var k2 = scalars.1 else { throw BitcoinError.musig2(.secretNonceOutOfRange(part: 2)) }
        // BIP340 signs for the even-y R: negate both nonces when R has odd y.
        if finalNonce.hasOddY {
            k1 = -k1
            k2 = -k2
        }
        let publicKey = secretKey.publicKey
        guard publicKey == nonceKey else { throw BitcoinError.musig2(.secretNonceForAnotherKey) }
        guard let a = keyAggregation.coefficient(for: publicKey) else { throw BitcoinError.musig2(.signerNotInKeyList) }
        guard let secret = Secp256k1Scalar(exactly: secretKey.bytes) else {
            throw BitcoinError.invalidKey("private key is not below the curve order")
        }
        // d = g·gacc·d': the key that signs for Q as it is after every tweak.
        let d = keyAggregation.signerKeysNegated ? -secret : secret
        let s = k1 + nonceCoefficient * k2 + challenge * a * d
        let signature = MuSig2PartialSignature(scalar: s)
        guard verify(signature, publicNonce: publicNonce, publicKey: publicKey) else {
            throw BitcoinError.invalidSignature("MuSig2 partial signature failed its own verification")
        }
        return signature
    }

    /// BIP327 PartialSigVerify for the signer with `publicKey` and `publicNonce`:
    /// s·G == R* + e·a·g·gacc·P, with R* = R1 + b·R2 negated when R has odd y. False for
    /// s not below n, and for a key that is not in the session.
    public func verify(_ signature: MuSig2PartialSignature, publicNonce: MuSig2PublicNonce, publicKey: PublicKey) -> Bool {
        guard let s = signature.scalar, let a = keyAggregation.coefficient(for: publicKey) else { return false }
        let effectiveNonce = CurvePoint.sum([publicNonce.first, CurvePoint.multiply(publicNonce.second, by: nonceCoefficient)])
        let nonce = finalNonce.hasOddY ? CurvePoint.negate(effectiveNonce) : effectiveNonce
        let key = keyAggregation.signerKeysNegated ? publicKey.negated : publicKey
        let expected = CurvePoint.sum([nonce, CurvePoint.multiply(key, by: challenge * a)])
        return CurvePoint.generator(times: s) == expected
    }

    /// BIP327 PartialSigAgg: the BIP340 signature (R.x, s) for the aggregate key, with
    /// s = sum of s_i + e·g·tacc. A partial signature not below n is blamed on its signer
    /// (index into `signatures`). Signatures are not verified here: verify each with
    /// `verify` first to know whom to blame, or check the result against the aggregate key.
    public func aggregate(_ signatures: [MuSig2PartialSignature]) throws -> SchnorrSignature {
        var s = Secp256k1Scalar.zero
        for (index, signature) in signatures.enumerated() {
            guard let value = signature.scalar else {
                throw BitcoinError.musig2(.invalidContribution(signer: index, .partialSignature))
            }
            s = s + value
        }
        let tweakTerm = challenge * keyAggregation.tweakScalar
        s = s + (keyAggregation.aggregateKey.hasOddY ? -tweakTerm : tweakTerm)
        return try SchnorrSignature(finalNonce.xOnlyPublicKey.bytes + s.bytes)
    }
}
