import Bitcoin

/// Builds and signs BOLT11 invoices.
///
/// Fill in the values and call `sign(with:)`. Fields are written in one fixed order
/// (p, s, d or h, x, c, n, f..., r..., 9, m), so the same values and key always give the
/// same string (signing is RFC 6979, deterministic). The signed string is read back with
/// `InvoiceDecoder` before it is returned, so an encoder result always passes the reader.
///
/// `sign(currency:amountMsat:timestamp:fields:with:)` writes a given field list as is,
/// in its order, for reproducing invoices written by others.
public struct InvoiceEncoder: Sendable {
    /// The description, or the hash of one given to the payer some other way.
    public enum Description: Sendable, Hashable {
        case text(String)
        case hash([UInt8])
    }

    public var currency: InvoiceCurrency
    /// nil: any amount.
    public var amountMsat: UInt64?
    /// Seconds since 1970, below 2^35.
    public var timestamp: UInt64
    public var paymentHash: [UInt8]
    public var paymentSecret: [UInt8]
    public var description: Description
    /// nil leaves `x` out (the reader's default is 3600 s).
    public var expirySeconds: UInt64?
    /// Always written, as the BOLT asks of a writer.
    public var minFinalCLTVExpiryDelta: UInt64
    /// Writes the signer's key as `n`, sparing the payer the recovery.
    public var includesPayeeNodeID: Bool
    public var fallbacks: [Address]
    public var routeHints: [[RouteHintHop]]
    public var features: FeatureBits
    public var metadata: [UInt8]?

    public init(currency: InvoiceCurrency, amountMsat: UInt64?, timestamp: UInt64,
                paymentHash: [UInt8], paymentSecret: [UInt8], description: Description,
                expirySeconds: UInt64? = nil,
                minFinalCLTVExpiryDelta: UInt64 = Invoice.defaultMinFinalCLTVExpiryDelta,
                includesPayeeNodeID: Bool = false, fallbacks: [Address] = [],
                routeHints: [[RouteHintHop]] = [], features: FeatureBits = .invoiceDefault,
                metadata: [UInt8]? = nil) {
        self.currency = currency
        self.amountMsat = amountMsat
        self.timestamp = timestamp
        self.paymentHash = paymentHash
        self.paymentSecret = paymentSecret
        self.description = description
        self.expirySeconds = expirySeconds
        self.minFinalCLTVExpiryDelta = minFinalCLTVExpiryDelta
        self.includesPayeeNodeID = includesPayeeNodeID
        self.fallbacks = fallbacks
        self.routeHints = routeHints
        self.features = features
        self.metadata = metadata
    }

    /// The fields in the encoder's fixed order; `payee` is written as `n` when
    /// `includesPayeeNodeID`.
    public func fields(payee: PublicKey) -> [TaggedField] {
        var fields: [TaggedField] = [.paymentHash(paymentHash), .paymentSecret(paymentSecret)]
        switch description {
        case .text(let text): fields.append(.description(text))
        case .hash(let hash): fields.append(.descriptionHash(hash))
        }
        if let expirySeconds { fields.append(.expiry(expirySeconds)) }
        fields.append(.minFinalCLTVExpiryDelta(minFinalCLTVExpiryDelta))
        if includesPayeeNodeID { fields.append(.payeeNodeID(payee)) }
        fields += fallbacks.map(TaggedField.fallback)
        fields += routeHints.map(TaggedField.routeHint)
        // The BOLT: with no bits set, the writer MUST omit `9` altogether.
        if !features.isEmpty { fields.append(.features(features)) }
        if let metadata { fields.append(.metadata(metadata)) }
        return fields
    }

    /// Signs with the payee's node key and returns the decoded invoice (`string` is the
    /// text to hand out).
    public func sign(with key: PrivateKey) throws(BOLT11Error) -> Invoice {
        try Self.sign(currency: currency, amountMsat: amountMsat, timestamp: timestamp,
                      fields: fields(payee: key.publicKey), with: key)
    }

    /// Writes `fields` in the order given, signs, and reads the result back.
    public static func sign(currency: InvoiceCurrency, amountMsat: UInt64?, timestamp: UInt64,
                            fields: [TaggedField], with key: PrivateKey) throws(BOLT11Error) -> Invoice {
        guard timestamp < 1 << 35 else {
            throw .unencodable("timestamp \(timestamp) does not fit the invoice's 35 bits")
        }
        let hrp = currency.prefix + (try amountMsat.map(InvoiceAmount.format) ?? "")
        var words = FiveBitWords.fixed(timestamp, count: InvoiceDecoder.timestampWords)
        for field in fields {
            try field.validateForEncoding()
            let data = field.words
            words += [field.type] + FiveBitWords.fixed(UInt64(data.count), count: 2) + data
        }
        let signature: RecoverableSignature
        do {
            signature = try RecoverableSignature.sign(digest: InvoiceDecoder.signingHash(hrp: hrp, signedWords: words), with: key)
        } catch {
            throw .unencodable("signing failed: \(error)")
        }
        // 65 bytes = 520 bits = exactly 104 words, no padding.
        words += FiveBitWords.fromBytes(signature.compact + [signature.recoveryID])
        let invoice = try InvoiceDecoder.decode(Bech32.encode(hrp: hrp, data: words, encoding: .bech32))
        // A field list naming another payee in `n` fails in the decoder already; this
        // guards the recovered case.
        guard invoice.payeeNodeID == key.publicKey else { throw .signatureMismatch }
        return invoice
    }
}
