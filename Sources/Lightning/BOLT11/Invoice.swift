import Bitcoin

/// A decoded, signature-checked BOLT11 invoice.
///
/// Only `InvoiceDecoder` (and `InvoiceEncoder`, through it) makes one, so every value
/// has passed the reader's rules: known currency, whole-millisatoshi amount, a payment
/// hash, a payment secret, a description or its hash, no unknown required feature, and
/// a signature by `payeeNodeID`. Where a field may repeat, the accessors return the first
/// usable one (the BOLT: the writer puts the preferred field first).
public struct Invoice: Sendable, Hashable {
    /// BOLT11 defaults when `x` or `c` is absent.
    public static let defaultExpirySeconds: UInt64 = 3600
    public static let defaultMinFinalCLTVExpiryDelta: UInt64 = 18

    public let currency: InvoiceCurrency
    /// The amount requested, in millisatoshis; nil for an any-amount invoice.
    public let amountMsat: UInt64?
    /// Seconds since 1970-01-01 UTC when the invoice was made.
    public let timestamp: UInt64
    /// Every tagged field in wire order, including the ones the reader skipped.
    public let fields: [TaggedField]
    public let signature: RecoverableSignature
    /// The payee: the `n` field when present (the signature was verified against it),
    /// otherwise the key recovered from the signature.
    public let payeeNodeID: PublicKey
    /// SHA-256 of the human-readable part and the data before the signature: what
    /// `signature` signs.
    public let signingHash: [UInt8]
    /// The invoice as a lowercase bech32 string (uppercase input comes back lowercase).
    public let string: String

    public let paymentHash: [UInt8]
    public let paymentSecret: [UInt8]

    init(currency: InvoiceCurrency, amountMsat: UInt64?, timestamp: UInt64, fields: [TaggedField],
         signature: RecoverableSignature, payeeNodeID: PublicKey, signingHash: [UInt8], string: String,
         paymentHash: [UInt8], paymentSecret: [UInt8]) {
        self.currency = currency
        self.amountMsat = amountMsat
        self.timestamp = timestamp
        self.fields = fields
        self.signature = signature
        self.payeeNodeID = payeeNodeID
        self.signingHash = signingHash
        self.string = string
        self.paymentHash = paymentHash
        self.paymentSecret = paymentSecret
    }

    /// The bytes whose SHA-256 is `signingHash` (HRP, then the data words before the
    /// signature packed into bytes), rebuilt from `string`.
    public var signingData: [UInt8] {
        // Cannot fail: `string` is the bech32 string the decoder accepted.
        let decoded = try! Bech32.decode(string, maxLength: InvoiceDecoder.maxLength)
        return InvoiceDecoder.signingData(hrp: decoded.hrp,
                                          signedWords: Array(decoded.data.dropLast(InvoiceDecoder.signatureWords)))
    }

    /// The human-readable part: prefix and amount (`lnbcrt25m`).
    public var humanReadablePart: String {
        // Cannot throw: the amount was read from, or checked for, this very form.
        currency.prefix + ((try? amountMsat.map(InvoiceAmount.format)) ?? "")
    }

    /// The amount in whole satoshis, for on-chain use; nil for an any-amount invoice.
    /// Throws when the amount has a millisatoshi remainder, which a chain cannot pay.
    public var amountSatoshis: UInt64? {
        get throws(BOLT11Error) {
            guard let amountMsat else { return nil }
            guard amountMsat % 1000 == 0 else { throw .subSatoshiAmount(msat: amountMsat) }
            return amountMsat / 1000
        }
    }

    /// The `d` field: the payee's description of the payment.
    public var descriptionText: String? {
        fields.lazy.compactMap { if case .description(let text) = $0 { return text } else { return nil } }.first
    }

    public var descriptionHash: [UInt8]? {
        fields.lazy.compactMap { if case .descriptionHash(let hash) = $0 { return hash } else { return nil } }.first
    }

    /// True when `text` is the description: equal to `d`, or hashing to `h`. A payer
    /// shown only `h` MUST check the description it was given this way.
    public func commits(toDescription text: String) -> Bool {
        if let descriptionText { return descriptionText == text }
        return descriptionHash == SHA256.hash(Array(text.utf8))
    }

    /// The `x` field as written, nil when absent.
    public var statedExpirySeconds: UInt64? {
        fields.lazy.compactMap { if case .expiry(let value) = $0 { return value } else { return nil } }.first
    }

    /// Seconds after `timestamp` until the invoice expires (3600 when unstated).
    public var expirySeconds: UInt64 { statedExpirySeconds ?? Self.defaultExpirySeconds }

    /// When the invoice expires, in seconds since 1970 (saturating, never wrapping).
    public var expiresAt: UInt64 {
        let (sum, overflow) = timestamp.addingReportingOverflow(expirySeconds)
        return overflow ? .max : sum
    }

    /// True at or after `expiresAt`: a payer SHOULD NOT pay and a payee SHOULD NOT accept.
    public func isExpired(now: UInt64) -> Bool { now >= expiresAt }

    /// The `c` field as written, nil when absent.
    public var statedMinFinalCLTVExpiryDelta: UInt64? {
        fields.lazy.compactMap { if case .minFinalCLTVExpiryDelta(let value) = $0 { return value } else { return nil } }.first
    }

    /// Blocks the final HTLC must have left when it reaches the payee (18 when unstated).
    public var minFinalCLTVExpiryDelta: UInt64 {
        statedMinFinalCLTVExpiryDelta ?? Self.defaultMinFinalCLTVExpiryDelta
    }

    /// Fallback on-chain addresses, most preferred first; encode them for `currency.network`.
    public var fallbacks: [Address] {
        fields.compactMap { if case .fallback(let address) = $0 { return address } else { return nil } }
    }

    /// Private routes to the payee, each a list of hops in forward order.
    public var routeHints: [[RouteHintHop]] {
        fields.compactMap { if case .routeHint(let hops) = $0 { return hops } else { return nil } }
    }

    /// The `9` field (empty when absent).
    public var features: FeatureBits {
        fields.lazy.compactMap { if case .features(let bits) = $0 { return bits } else { return nil } }.first
            ?? FeatureBits(bits: [])
    }

    /// The `n` field, nil when the payee was recovered from the signature.
    public var statedPayeeNodeID: PublicKey? {
        fields.lazy.compactMap { if case .payeeNodeID(let key) = $0 { return key } else { return nil } }.first
    }

    public var metadata: [UInt8]? {
        fields.lazy.compactMap { if case .metadata(let bytes) = $0 { return bytes } else { return nil } }.first
    }

    /// Fields the reader skipped: unknown types, and known ones of a length or version
    /// the BOLT says to skip.
    public var skippedFields: [(type: UInt8, words: [UInt8])] {
        fields.compactMap { if case .skipped(let type, let words) = $0 { return (type, words) } else { return nil } }
    }
}

extension Invoice: CustomStringConvertible {
    /// A short summary for logs; the full string is `string`.
    public var description: String {
        "Invoice(\(humanReadablePart), hash \(paymentHash.hex.prefix(16))…, payee \(payeeNodeID.compressed.hex.prefix(16))…)"
    }
}
