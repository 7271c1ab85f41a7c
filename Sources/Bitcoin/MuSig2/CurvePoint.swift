import CSecp256k1

/// Group operations on points where the point at infinity is a legitimate value, as it is
/// in BIP327 (a sum of nonces may be infinity; `nil` stands for it). `PublicKey` cannot hold
/// infinity, and libsecp256k1's public API refuses it, so the cases are handled here, and
/// everything else is libsecp256k1's own point addition and multiplication.
enum CurvePoint {
    /// The sum of the points; nil when it is infinity.
    static func sum(_ points: [PublicKey?]) -> PublicKey? {
        let terms = points.compactMap { $0?.cPubkey }
        guard !terms.isEmpty else { return nil }
        var result = secp256k1_pubkey()
        let combined = terms.withUnsafeBufferPointer { buffer in
            let pointers: [UnsafePointer<secp256k1_pubkey>?] = (0..<buffer.count).map { buffer.baseAddress! + $0 }
            // Fails only when the sum is infinity (each term is a valid point).
            return secp256k1_ec_pubkey_combine(Secp256k1Context.shared, &result, pointers, pointers.count)
        }
        return combined == 1 ? PublicKey(validated: result) : nil
    }

    /// s·P; nil when P is infinity or s is 0.
    static func multiply(_ point: PublicKey?, by scalar: Secp256k1Scalar) -> PublicKey? {
        guard let point, !scalar.isZero else { return nil }
        var result = point.cPubkey
        Secp256k1Context.expect("secp256k1_ec_pubkey_tweak_mul") { secp256k1_ec_pubkey_tweak_mul($0, &result, scalar.bytes) }
        return PublicKey(validated: result)
    }

    /// s·G; nil when s is 0.
    static func generator(times scalar: Secp256k1Scalar) -> PublicKey? {
        guard !scalar.isZero else { return nil }
        var result = secp256k1_pubkey()
        Secp256k1Context.expect("secp256k1_ec_pubkey_create") { secp256k1_ec_pubkey_create($0, &result, scalar.bytes) }
        return PublicKey(validated: result)
    }

    /// -P (infinity stays infinity).
    static func negate(_ point: PublicKey?) -> PublicKey? { point?.negated }

    /// BIP327 cpoint_ext: 33 zero bytes are infinity, anything else must be a compressed point.
    static func parseExtended(_ bytes: ArraySlice<UInt8>) -> PublicKey?? {
        if bytes.allSatisfy({ $0 == 0 }) { return .some(nil) }
        return parse(bytes).map { .some($0) }
    }

    /// BIP327 cpoint: a 33-byte compressed point (0x02/0x03 prefix), or nil.
    static func parse(_ bytes: ArraySlice<UInt8>) -> PublicKey? {
        guard bytes.count == PublicKey.compressedByteCount else { return nil }
        return try? PublicKey(Array(bytes))
    }

    /// BIP327 cbytes_ext: infinity as 33 zero bytes.
    static func serializeExtended(_ point: PublicKey?) -> [UInt8] {
        point?.compressed ?? [UInt8](repeating: 0, count: PublicKey.compressedByteCount)
    }
}

extension CurvePoint {
    /// G, the generator (1·G).
    static let generatorPoint: PublicKey = {
        guard let point = generator(times: .one) else { preconditionFailure("1·G is infinity") }
        return point
    }()
}
