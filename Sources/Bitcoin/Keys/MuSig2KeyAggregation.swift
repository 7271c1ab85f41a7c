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

    private var tacc: Secp256k1Scalar

    /// The aggregate key as BIP340 sees it (GetXonlyPubkey).
    public var xOnlyPublicKey: XOnlyPublicKey { aggregateKey.xOnlyPublicKey }

    /// KeyAgg over parsed keys. Fails only if the sum is the point at infinity.
    public init(publicKeys: [PublicKey]) throws {
        guard !publicKeys.isEmpty else {
            throw BitcoinError.invalidKeyAggregation("key aggregation needs at least one public key")
        }
        let list = publicKeys.flatMap(\.compressed)
        let listHash = TaggedHash.hash(tag: "KeyAgg list", list)
        // The second distinct key gets coefficient 1, saving a multiplication for it.
        let secondKey = publicKeys.first { $0 != publicKeys[0] }
        var terms = [secp256k1_pubkey]()
        for key in publicKeys {
            var point = key.cPubkey
            if key != secondKey {
                let hash = TaggedHash.hash(tag: "KeyAgg coefficient", listHash + key.compressed)
                let coefficient = Secp256k1Scalar(reducing: hash)
                try Secp256k1Context.call(.invalidKeyAggregation("key aggregation coefficient is zero")) {
                    secp256k1_ec_pubkey_tweak_mul($0, &point, coefficient.bytes)
                }
            }
            terms.append(point)
        }
        var sum = secp256k1_pubkey()
        try withPointers(to: terms) { pointers in
            try Secp256k1Context.call(.aggregateKeyIsInfinity) {
                secp256k1_ec_pubkey_combine($0, &sum, pointers, pointers.count)
            }
        }
        self.publicKeys = publicKeys
        aggregateKey = PublicKey(validated: sum)
        signAccumulatorNegated = false
        tacc = .zero
    }

    /// KeyAgg over 33-byte compressed encodings, blaming the first signer (index into
    /// `serializedKeys`) whose key is not a valid compressed point.
    public init(serializedKeys: [[UInt8]]) throws {
        var keys = [PublicKey]()
        for (index, bytes) in serializedKeys.enumerated() {
            guard bytes.count == PublicKey.compressedByteCount, let key = try? PublicKey(bytes) else {
                throw BitcoinError.invalidSignerPublicKey(signer: index)
            }
            keys.append(key)
        }
        try self.init(publicKeys: keys)
    }

    /// BIP327 ApplyTweak: Q' = g·Q + t·G, with g = -1 when `xOnly` and Q has odd y, else 1;
    /// gacc' = g·gacc, tacc' = t + g·tacc.
    public func tweaked(by tweak: [UInt8], xOnly: Bool) throws -> MuSig2KeyAggregation {
        guard tweak.count == 32, let t = Secp256k1Scalar(exactly: tweak) else {
            throw BitcoinError.tweakOutOfRange
        }
        let negate = xOnly && aggregateKey.hasOddY
        var point = (negate ? aggregateKey.negated : aggregateKey).cPubkey
        // With t < n checked above, a failure here can only mean the result is infinity.
        try Secp256k1Context.call(.tweakResultIsInfinity) {
            secp256k1_ec_pubkey_tweak_add($0, &point, tweak)
        }
        var next = self
        next.aggregateKey = PublicKey(validated: point)
        next.signAccumulatorNegated = signAccumulatorNegated != negate
        next.tacc = t + (negate ? -tacc : tacc)
        return next
    }

    /// BIP327 KeySort: lexicographic order of the 33-byte encodings.
    public static func sorted(_ keys: [PublicKey]) -> [PublicKey] { keys.sorted() }

    /// KeySort on raw encodings (BIP327 sorts bytes, valid points or not).
    public static func sorted(serializedKeys: [[UInt8]]) -> [[UInt8]] {
        serializedKeys.sorted { $0.lexicographicallyPrecedes($1) }
    }
}

/// Calls `body` with an array of pointers to copies of `values`, valid only during the call
/// (secp256k1_ec_pubkey_combine takes `const secp256k1_pubkey * const *`).
private func withPointers<R>(to values: [secp256k1_pubkey],
                             _ body: ([UnsafePointer<secp256k1_pubkey>?]) throws -> R) rethrows -> R {
    try values.withUnsafeBufferPointer { buffer in
        let base = buffer.baseAddress!
        return try body((0..<buffer.count).map { Optional(base + $0) })
    }
}

extension BitcoinError {
    /// BIP327 "invalid contribution" by a signer's public key: `signer` is its index.
    public static func invalidSignerPublicKey(signer: Int) -> BitcoinError {
        .invalidKeyAggregation("public key of signer \(signer) is not a valid compressed secp256k1 point")
    }
    /// BIP327 ApplyTweak: "The tweak must be less than n."
    public static let tweakOutOfRange = BitcoinError.invalidKeyAggregation("the tweak must be less than the curve order n")
    /// BIP327 ApplyTweak: "The result of tweaking cannot be infinity."
    public static let tweakResultIsInfinity = BitcoinError.invalidKeyAggregation("the result of tweaking is the point at infinity")
    /// BIP327 KeyAgg: the weighted sum of the keys is the point at infinity.
    public static let aggregateKeyIsInfinity = BitcoinError.invalidKeyAggregation("the aggregate public key is the point at infinity")
}
