import Bitcoin

/// One tagged field of an invoice's data part (BOLT11 "Tagged Fields"). On the wire:
/// a 5-bit type, a 10-bit `data_length` in words, then the data.
///
/// Fields the reader must skip (unknown types; `p`, `h`, `s`, `n` of the wrong length;
/// `f` of an unknown version) are kept as `.skipped` with their words, so that an
/// invoice's field list is complete and in wire order.
public enum TaggedField: Sendable, Hashable {
    /// `p`: SHA-256 payment hash, 32 bytes.
    case paymentHash([UInt8])
    /// `s`: payment secret, 32 bytes.
    case paymentSecret([UInt8])
    /// `d`: short UTF-8 description.
    case description(String)
    /// `h`: SHA-256 of a description given elsewhere, 32 bytes.
    case descriptionHash([UInt8])
    /// `x`: seconds after the timestamp until the invoice expires.
    case expiry(UInt64)
    /// `c`: min_final_cltv_expiry_delta, blocks the final HTLC must have left.
    case minFinalCLTVExpiryDelta(UInt64)
    /// `f`: on-chain fallback address (network from the invoice prefix).
    case fallback(Address)
    /// `r`: one private route, hops in forward order towards the payee.
    case routeHint([RouteHintHop])
    /// `9`: feature bits.
    case features(FeatureBits)
    /// `n`: the payee's node id, 33 bytes.
    case payeeNodeID(PublicKey)
    /// `m`: payment metadata, opaque bytes the payer echoes in the onion.
    case metadata([UInt8])
    /// A field the reader skips, with its raw 5-bit words.
    case skipped(type: UInt8, words: [UInt8])

    // Field types: each is the value of its bech32 letter.
    static let paymentHashType: UInt8 = 1      // p
    static let routeHintType: UInt8 = 3        // r
    static let featuresType: UInt8 = 5         // 9
    static let expiryType: UInt8 = 6           // x
    static let fallbackType: UInt8 = 9         // f
    static let descriptionType: UInt8 = 13     // d
    static let paymentSecretType: UInt8 = 16   // s
    static let payeeNodeIDType: UInt8 = 19     // n
    static let descriptionHashType: UInt8 = 23 // h
    static let cltvType: UInt8 = 24            // c
    static let metadataType: UInt8 = 27        // m

    /// `data_length` is 10 bits.
    static let maxWords = 1023
    /// 32 bytes in 5-bit words: 256 bits round up to 52 words.
    static let hashWords = 52
    /// 33 bytes: 264 bits round up to 53 words.
    static let pubkeyWords = 53

    /// The 5-bit type.
    public var type: UInt8 {
        switch self {
        case .paymentHash: return Self.paymentHashType
        case .paymentSecret: return Self.paymentSecretType
        case .description: return Self.descriptionType
        case .descriptionHash: return Self.descriptionHashType
        case .expiry: return Self.expiryType
        case .minFinalCLTVExpiryDelta: return Self.cltvType
        case .fallback: return Self.fallbackType
        case .routeHint: return Self.routeHintType
        case .features: return Self.featuresType
        case .payeeNodeID: return Self.payeeNodeIDType
        case .metadata: return Self.metadataType
        case .skipped(let type, _): return type
        }
    }

    /// The bech32 letter that names the type (`p`, `d`, `9`, ...).
    public var tag: Character { Self.tag(type) }

    static func tag(_ type: UInt8) -> Character {
        Character(Unicode.Scalar(FiveBitWords.alphabet[Int(type & 31)]))
    }
}
