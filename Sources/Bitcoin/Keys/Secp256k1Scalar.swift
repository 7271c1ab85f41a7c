import CSecp256k1

/// An integer modulo the secp256k1 group order n, for MuSig2's scalar arithmetic.
///
/// Addition, negation and multiplication are libsecp256k1's own constant-time secret-key
/// functions (`secp256k1_ec_seckey_tweak_add`, `_negate`, `_tweak_mul`); this type only adds
/// what they refuse, the value 0 (MuSig2's tweak accumulator and many intermediate values may
/// be 0), by branching on it. Only parsing and reduction of 32 bytes are done here, on
/// public values (hashes, received signatures). Secret values pass through it when signing;
/// their copies are plain Swift arrays, which are not reliably erased.
struct Secp256k1Scalar: Hashable, Sendable {
    /// Big-endian 64-bit limbs: limbs[0] is the most significant.
    private var limbs: [UInt64]

    /// The group order n, big-endian.
    static let orderBytes: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE,
        0xBA, 0xAE, 0xDC, 0xE6, 0xAF, 0x48, 0xA0, 0x3B, 0xBF, 0xD2, 0x5E, 0x8C, 0xD0, 0x36, 0x41, 0x41,
    ]
    private static let order: [UInt64] = limbs(orderBytes)

    static let zero = Secp256k1Scalar(uncheckedLimbs: [0, 0, 0, 0])
    static let one = Secp256k1Scalar(uncheckedLimbs: [0, 0, 0, 1])

    private init(uncheckedLimbs: [UInt64]) { limbs = uncheckedLimbs }

    /// The scalar for 32 big-endian bytes, or nil if the value is not below n.
    init?(exactly bytes: [UInt8]) {
        precondition(bytes.count == 32, "a scalar is 32 bytes")
        let value = Self.limbs(bytes)
        guard Self.less(value, Self.order) else { return nil }
        limbs = value
    }

    /// 32 big-endian bytes reduced modulo n (one subtraction suffices since 2^256 < 2n).
    init(reducing bytes: [UInt8]) {
        precondition(bytes.count == 32, "a scalar is 32 bytes")
        let value = Self.limbs(bytes)
        limbs = Self.less(value, Self.order) ? value : Self.subtract(value, Self.order).result
    }

    var isZero: Bool { limbs.allSatisfy { $0 == 0 } }

    var bytes: [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(32)
        for limb in limbs {
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: limb >> UInt64(shift))) }
        }
        return out
    }

    /// a + b mod n. Both nonzero and below n, libsecp256k1 fails only when the sum is 0.
    static func + (a: Secp256k1Scalar, b: Secp256k1Scalar) -> Secp256k1Scalar {
        if a.isZero { return b }
        if b.isZero { return a }
        var sum = a.bytes
        let added = secp256k1_ec_seckey_tweak_add(Secp256k1Context.shared, &sum, b.bytes)
        return added == 1 ? Secp256k1Scalar(validated: sum) : .zero
    }

    /// n - a (0 for 0).
    static prefix func - (a: Secp256k1Scalar) -> Secp256k1Scalar {
        if a.isZero { return a }
        var negated = a.bytes
        Secp256k1Context.expect("secp256k1_ec_seckey_negate") { secp256k1_ec_seckey_negate($0, &negated) }
        return Secp256k1Scalar(validated: negated)
    }

    static func - (a: Secp256k1Scalar, b: Secp256k1Scalar) -> Secp256k1Scalar { a + -b }

    /// a · b mod n. n is prime, so the product of two nonzero values is never 0.
    static func * (a: Secp256k1Scalar, b: Secp256k1Scalar) -> Secp256k1Scalar {
        if a.isZero || b.isZero { return .zero }
        var product = a.bytes
        Secp256k1Context.expect("secp256k1_ec_seckey_tweak_mul") { secp256k1_ec_seckey_tweak_mul($0, &product, b.bytes) }
        return Secp256k1Scalar(validated: product)
    }

    /// Wraps libsecp256k1's output, which is always below n.
    private init(validated bytes: [UInt8]) { limbs = Self.limbs(bytes) }

    private static func limbs(_ bytes: [UInt8]) -> [UInt64] {
        (0..<4).map { limb in
            bytes[(limb * 8)..<(limb * 8 + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
    }

    private static func less(_ a: [UInt64], _ b: [UInt64]) -> Bool {
        for i in 0..<4 where a[i] != b[i] { return a[i] < b[i] }
        return false
    }

    /// a - b modulo 2^256, with the final borrow.
    private static func subtract(_ a: [UInt64], _ b: [UInt64]) -> (result: [UInt64], borrow: Bool) {
        var out = [UInt64](repeating: 0, count: 4)
        var borrow: UInt64 = 0
        for i in (0..<4).reversed() {
            let (d1, o1) = a[i].subtractingReportingOverflow(b[i])
            let (d2, o2) = d1.subtractingReportingOverflow(borrow)
            out[i] = d2
            borrow = (o1 || o2) ? 1 : 0
        }
        return (out, borrow != 0)
    }
}
