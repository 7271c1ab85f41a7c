import CSodium

/// A signer's BIP327 secret nonce (k1, k2, and the public key it was made for), good for
/// exactly one partial signature.
///
/// Nonce reuse is the one way MuSig2 loses the key: two partial signatures with the same
/// (k1, k2) for two different messages (or the same message under a different aggregate
/// nonce) give away the secret key by a subtraction. So this type is built to make a second
/// use impossible rather than merely wrong:
/// - it is `~Copyable`: there is only ever one value, and `MuSig2Session.sign` takes it
///   `consuming`, so the compiler refuses any code that signs twice with it or keeps it
///   after signing;
/// - it has no serialization and no description: it is held only in memory and dies with
///   the process, so no crash, restart or replayed request can bring an old nonce back (a
///   restarted session must run a fresh nonce round);
/// - its k1 and k2 live in one manually allocated buffer that is zeroed when the value is
///   destroyed (after signing, or when dropped unused). `Sign` also refuses a zero k1 or
///   k2, which is what BIP327's reference code leaves behind after use.
/// The public side, `publicNonce`, is what is sent to the other signers.
public struct MuSig2SecretNonce: ~Copyable, @unchecked Sendable {
    /// k1 || k2, 64 bytes, erased in `deinit`. `@unchecked Sendable` is sound because the
    /// value is never copied: whoever holds it owns the buffer alone.
    private let secrets: UnsafeMutableRawBufferPointer
    /// The signer's key this nonce was made for; signing with another key is refused.
    public let publicKey: PublicKey
    /// R1 = k1·G, R2 = k2·G: what the signer sends.
    public let publicNonce: MuSig2PublicNonce

    /// BIP327 NonceGen with 32 fresh random bytes. Every optional input makes the nonce
    /// safer if the random source were ever bad (BIP327 recommends them all): the signer's
    /// secret key, the aggregate (x-only, tweaked) key, the message, and any extra input
    /// (e.g. a session id).
    public init(publicKey: PublicKey, secretKey: PrivateKey? = nil, aggregateKey: XOnlyPublicKey? = nil,
                message: [UInt8]? = nil, extraInput: [UInt8]? = nil) throws {
        var randomness = Secp256k1Context.randomBytes(count: 32)
        defer { sodium_memzero(&randomness, randomness.count) }
        try self.init(randomness: randomness, publicKey: publicKey, secretKey: secretKey,
                      aggregateKeyBytes: aggregateKey?.bytes, message: message, extraInput: extraInput)
    }

    /// NonceGen with the caller's rand' (only BIP327's vectors may choose it).
    init(randomness: [UInt8], publicKey: PublicKey, secretKey: PrivateKey?, aggregateKeyBytes: [UInt8]?,
         message: [UInt8]?, extraInput: [UInt8]?) throws {
        guard randomness.count == 32 else {
            throw BitcoinError.musig2(.invalidLength(what: "NonceGen randomness", expected: 32, got: randomness.count))
        }
        if let aggregateKeyBytes, aggregateKeyBytes.count != 32 {
            throw BitcoinError.musig2(.invalidLength(what: "an x-only aggregate key", expected: 32, got: aggregateKeyBytes.count))
        }
        var rand = randomness
        if let secretKey {
            let mask = TaggedHash.hash(tag: "MuSig/aux", randomness)
            rand = zip(secretKey.bytes, mask).map { $0 ^ $1 }
        }
        defer { sodium_memzero(&rand, rand.count) }
        let aggregateKey = aggregateKeyBytes ?? []
        let extra = extraInput ?? []
        // The message is prefixed so that "no message" and "an empty message" differ.
        let prefixedMessage = message.map { [1] + Self.bigEndian(UInt64($0.count), bytes: 8) + $0 } ?? [0]
        var common = rand + [UInt8(publicKey.compressed.count)] + publicKey.compressed
            + [UInt8(aggregateKey.count)] + aggregateKey + prefixedMessage
            + Self.bigEndian(UInt64(extra.count), bytes: 4) + extra
        defer { sodium_memzero(&common, common.count) }
        let k1 = Secp256k1Scalar(reducing: TaggedHash.hash(tag: "MuSig/nonce", common + [0]))
        let k2 = Secp256k1Scalar(reducing: TaggedHash.hash(tag: "MuSig/nonce", common + [1]))
        guard !k1.isZero, !k2.isZero else { throw BitcoinError.musig2(.nonceGenerationFailed) }
        try self.init(k1: k1.bytes, k2: k2.bytes, publicKey: publicKey)
    }

    /// A secret nonce from its BIP327 serialization k1 || k2 || pk (97 bytes): only for
    /// BIP327's vectors, which include a used (zeroed) nonce. A zero or out-of-range k is
    /// refused as Sign would refuse it.
    init(serialized bytes: [UInt8]) throws {
        guard bytes.count == 97 else {
            throw BitcoinError.musig2(.invalidLength(what: "a serialized secret nonce", expected: 97, got: bytes.count))
        }
        let publicKey = try PublicKey(Array(bytes[64...]))
        try self.init(k1: Array(bytes[0..<32]), k2: Array(bytes[32..<64]), publicKey: publicKey)
    }

    /// Takes k1 and k2 (32 bytes each), which must be in 1...n-1.
    init(k1: [UInt8], k2: [UInt8], publicKey: PublicKey) throws {
        guard let first = Secp256k1Scalar(exactly: k1), !first.isZero else {
            throw BitcoinError.musig2(.secretNonceOutOfRange(part: 1))
        }
        guard let second = Secp256k1Scalar(exactly: k2), !second.isZero else {
            throw BitcoinError.musig2(.secretNonceOutOfRange(part: 2))
        }
        guard let r1 = CurvePoint.generator(times: first), let r2 = CurvePoint.generator(times: second) else {
            throw BitcoinError.musig2(.secretNonceOutOfRange(part: 1))
        }
        secrets = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 8)
        secrets.copyBytes(from: k1 + k2)
        self.publicKey = publicKey
        publicNonce = MuSig2PublicNonce(first: r1, second: r2)
    }

    deinit {
        sodium_memzero(secrets.baseAddress, secrets.count)
        secrets.deallocate()
    }

    /// k1 and k2 as scalars (nil if out of range), for `MuSig2Session.sign` only.
    borrowing func withScalars<R>(_ body: (Secp256k1Scalar?, Secp256k1Scalar?) throws -> R) rethrows -> R {
        let k1 = Array(secrets[0..<32])
        let k2 = Array(secrets[32..<64])
        return try body(Secp256k1Scalar(exactly: k1).flatMap { $0.isZero ? nil : $0 },
                        Secp256k1Scalar(exactly: k2).flatMap { $0.isZero ? nil : $0 })
    }

    private static func bigEndian(_ value: UInt64, bytes count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}
