/// The feature vector of an invoice's `9` field: bit numbers, bit 0 least significant.
///
/// Features come in pairs: the even bit means the payee requires the feature, the odd bit
/// (even + 1) that it supports it ("it's ok to be odd"). A reader must refuse an invoice
/// with an even bit it does not know and ignore unknown odd bits.
public struct FeatureBits: Sendable, Hashable {
    /// The set bits, ascending.
    public let bits: [Int]

    // BOLT 9 features whose context includes `9` (invoices), by their even bit.
    public static let varOnionOptin = 8
    public static let paymentSecret = 14
    public static let basicMPP = 16
    public static let routeBlinding = 24
    public static let paymentMetadata = 48

    /// The even bits of every feature this reader knows in invoices.
    public static let known: Set<Int> = [varOnionOptin, paymentSecret, basicMPP, routeBlinding, paymentMetadata]

    /// BOLT 9 dependencies among the known features: feature (even bit) -> required feature.
    static let dependencies: [Int: Int] = [basicMPP: paymentSecret]

    /// What an invoice from this node sets: var_onion_optin and payment_secret, both
    /// required (bits 8 and 14, as in the BOLT's examples).
    public static let invoiceDefault = FeatureBits(bits: [varOnionOptin, paymentSecret])

    public init(bits: some Sequence<Int>) {
        self.bits = Set(bits).sorted()
    }

    /// True when `feature` (either bit of its pair) is set.
    public func supports(_ feature: Int) -> Bool {
        let even = feature & ~1
        return bits.contains(even) || bits.contains(even + 1)
    }

    /// True when the even (required) bit of `feature` is set.
    public func requires(_ feature: Int) -> Bool {
        bits.contains(feature & ~1)
    }

    public var isEmpty: Bool { bits.isEmpty }

    /// Reads the field's words: the last word holds bits 0...4, the one before 5...9, and
    /// so on.
    init(words: ArraySlice<UInt8>) {
        var set = [Int]()
        for (offset, word) in words.reversed().enumerated() {
            for bit in 0..<5 where word >> bit & 1 == 1 {
                set.append(offset * 5 + bit)
            }
        }
        self.init(bits: set)
    }

    /// The field's words, as few as hold the highest bit (the BOLT's SHOULD).
    var words: [UInt8] {
        guard let highest = bits.last else { return [] }
        var words = [UInt8](repeating: 0, count: highest / 5 + 1)
        for bit in bits {
            words[words.count - 1 - bit / 5] |= 1 << (bit % 5)
        }
        return words
    }

    /// Applies the reader's rules: no unknown even bit, every known dependency present.
    func validate() throws(BOLT11Error) {
        if let unknown = bits.first(where: { $0 % 2 == 0 && !Self.known.contains($0) }) {
            throw .unknownRequiredFeature(bit: unknown)
        }
        for (feature, requirement) in Self.dependencies.sorted(by: { $0.key < $1.key })
        where supports(feature) && !supports(requirement) {
            throw .missingFeatureDependency(feature: feature, requires: requirement)
        }
    }
}
