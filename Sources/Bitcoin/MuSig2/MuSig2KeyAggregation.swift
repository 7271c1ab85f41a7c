import CSecp256k1

/// BIP327 (MuSig2) key aggregation, without signing: the aggregate public key of several
/// signers, optionally tweaked (plain or x-only, e.g. for Taproot), as a `KeyAggContext`.
///
/// The keys are aggregated in the order given. BIP327 leaves sorting to the caller
/// (`sorted(_:)`); the swap HTLC deliberately uses the unsorted order (provider, client).
public struct MuSig2KeyAggregation: Sendable, Hashable {
    /// The signers' public keys, in aggregation order.
    public let publicKeys: [PublicKey]
    /// Q, the aggregate point after any tweaks.
    public private(set) var aggregateKey: PublicKey
    /// gacc: whether the accumulated sign factor is n-1 (true) rather than 1.
    public private(set) var signAccumulatorNegated: Bool
    /// tacc: the accumulated tweak, a scalar mod n (32 big-endian bytes).
    public var tweakAccumulator: [UInt8] { tacc.bytes }
    /// tacc as a scalar, for signing and aggregation.
    var tweakScalar: Secp256k1Scalar { tacc }

    private var tacc: Secp256k1Scalar
    /// HashKeys(pk1..pku), the list commitment every coefficient hashes.
    private let listHash: [UInt8]
    /// GetSecondKey: the first key unequal to the first, whose coefficient is 1 (nil if none).
    private let secondKey: PublicKey?

    /// The aggregate key as BIP340 sees it (GetXonlyPubkey).
    public var xOnlyPublicKey: XOnlyPublicKey { aggregateKey.xOnlyPublicKey }

    /// KeyAgg over parsed keys. Fails only if the sum is the point at infinity.
    public init(publicKeys: [PublicKey]) throws {
        guard !publicKeys.isEmpty else { throw BitcoinError.musig2(.noPublicKeys) }
        self.publicKeys = publicKeys
        listHash = TaggedHash.hash(tag: "KeyAgg list", publicKeys.flatMap(\.compressed))
        // The second distinct key gets coefficient 1, saving a multiplication for it.
        secondKey = publicKeys.first { $0 != publicKeys[0] }
        let terms = publicKeys.map { [listHash, secondKey] key in
            CurvePoint.multiply(key, by: Self.coefficient(for: key, listHash: listHash, secondKey: secondKey))
        }
        guard let sum = CurvePoint.sum(terms) else { throw BitcoinError.musig2(.aggregateKeyIsInfinity) }
        aggregateKey = sum
        signAccumulatorNegated = false
        tacc = .zero
    }

    /// KeyAgg over 33-byte compressed encodings, blaming the first signer (index into
    /// `serializedKeys`) whose key is not a valid compressed point.
    public init(serializedKeys: [[UInt8]]) throws {
        var keys = [PublicKey]()
        for (index, bytes) in serializedKeys.enumerated() {
            guard bytes.count == PublicKey.compressedByteCount, let key = try? PublicKey(bytes) else {
                throw BitcoinError.musig2(.invalidContribution(signer: index, .publicKey))
            }
            keys.append(key)
        }
        try self.init(publicKeys: keys)
    }

    /// BIP327 ApplyTweak: Q' = g·Q + t·G, with g = -1 when `xOnly` and Q has odd y, else 1;
    /// gacc' = g·gacc, tacc' = t + g·tacc.
    public func tweaked(by tweak: [UInt8], xOnly: Bool) throws -> MuSig2KeyAggregation {
        guard tweak.count == 32, let t = Secp256k1Scalar(exactly: tweak) else {
            throw BitcoinError.musig2(.tweakOutOfRange)
        }
        let negate = xOnly && aggregateKey.hasOddY
        var point = (negate ? aggregateKey.negated : aggregateKey).cPubkey
        // With t < n checked above, a failure here can only mean the result is infinity.
        try Secp256k1Context.call(.musig2(.tweakResultIsInfinity)) {
            secp256k1_ec_pubkey_tweak_add($0, &point, tweak)
        }
        var next = self
        next.aggregateKey = PublicKey(validated: point)
        next.signAccumulatorNegated = signAccumulatorNegated != negate
        next.tacc = t + (negate ? -tacc : tacc)
        return next
    }

    /// BIP327 KeyAggCoeff: the factor a_i the signer with `key` multiplies its secret by,
    /// or nil when `key` is not one of the aggregated keys.
    func coefficient(for key: PublicKey) -> Secp256k1Scalar? {
        guard publicKeys.contains(key) else { return nil }
        return Self.coefficient(for: key, listHash: listHash, secondKey: secondKey)
    }

    private static func coefficient(for key: PublicKey, listHash: [UInt8], secondKey: PublicKey?) -> Secp256k1Scalar {
        if key == secondKey { return .one }
        return Secp256k1Scalar(reducing: TaggedHash.hash(tag: "KeyAgg coefficient", listHash + key.compressed))
    }

    /// g·gacc as one sign: true when the secret keys must be negated to sign for Q
    /// (g = -1 when Q has odd y, as BIP340 signs for the even-y point).
    var signerKeysNegated: Bool { aggregateKey.hasOddY != signAccumulatorNegated }

    /// BIP327 KeySort: lexicographic order of the 33-byte encodings.
    public static func sorted(_ keys: [PublicKey]) -> [PublicKey] { keys.sorted() }

    /// KeySort on raw encodings (BIP327 sorts bytes, valid points or not).
    public static func sorted(serializedKeys: [[UInt8]]) -> [[UInt8]] {
        serializedKeys.sorted { $0.lexicographicallyPrecedes($1) }
    }
}
