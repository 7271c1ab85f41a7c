import Bitcoin

/// Reads a BOLT11 invoice string and applies every reader requirement of the BOLT: the
/// bech32 envelope (one case, valid checksum, no length limit of BIP173's 90), the
/// prefix and amount, the tagged fields (skipping what the BOLT says to skip), the
/// required fields, the feature bits, and the signature.
///
/// The high-S rule: with an `n` field the signature must be low-S and verify for `n`;
/// without one the payee is recovered with the recovery id exactly as transmitted,
/// high-S or not. A high-S signature recovers its signer only with the recovery id that
/// matches it (see `RecoverableSignature`); no other id is ever tried, since accepting any
/// id that "works" would let anyone re-attribute an invoice to a key of their choosing.
public enum InvoiceDecoder {
    /// The longest string accepted. BOLT11 lifts bech32's 90-character limit without
    /// setting another; this bound is far above any invoice a wallet makes (a QR code
    /// holds at most 4,296 characters) and keeps the work on hostile input small.
    public static let maxLength = 7089

    /// Words of the timestamp (35 bits) and of the signature (520 bits: r, s, recovery id).
    static let timestampWords = 7
    static let signatureWords = 104

    public static func decode(_ string: some StringProtocol) throws(BOLT11Error) -> Invoice {
        let bytes = Array(string.utf8)
        try checkEnvelope(bytes)
        let decoded: Bech32.Decoded
        do {
            decoded = try Bech32.decode(bytes: bytes, maxLength: maxLength)
        } catch {
            // checkEnvelope ruled out every other bech32 failure.
            throw .badChecksum
        }
        // Bech32m's constant is for segwit v1+; an invoice checksummed with it is not valid.
        guard decoded.encoding == .bech32 else { throw .badChecksum }

        let (currency, amountText) = try InvoiceCurrency.split(hrp: decoded.hrp)
        let amountMsat = try InvoiceAmount.parse(amountText)

        let words = decoded.data
        guard words.count >= timestampWords + signatureWords else { throw .tooShort }
        let signed = words[..<(words.count - signatureWords)]
        // 35 bits always fit.
        let timestamp = FiveBitWords.number(words[..<timestampWords])!
        let fields = try readFields(signed[timestampWords...])

        let required = try requiredFields(fields)
        if let features = fields.lazy.compactMap({ if case .features(let bits) = $0 { return bits } else { return nil } }).first {
            try features.validate()
        }

        let signatureBytes = FiveBitWords.toBytes(words[(words.count - signatureWords)...])
        let signingHash = signingHash(hrp: decoded.hrp, signedWords: Array(signed))
        let (signature, payee) = try checkSignature(signatureBytes, signingHash: signingHash, fields: fields)

        return Invoice(currency: currency, amountMsat: amountMsat, timestamp: timestamp, fields: fields,
                       signature: signature, payeeNodeID: payee, signingHash: signingHash,
                       string: String(decoding: bytes.map(lowercased), as: UTF8.self),
                       paymentHash: required.paymentHash, paymentSecret: required.paymentSecret)
    }

    // MARK: steps

    /// Every bech32 failure except the checksum, each with its own error, so that a
    /// failure left for `Bech32.decode` can only be the checksum.
    private static func checkEnvelope(_ bytes: [UInt8]) throws(BOLT11Error) {
        guard bytes.count <= maxLength else {
            throw .malformedBech32("\(bytes.count) characters is longer than any invoice (limit \(maxLength))")
        }
        if let position = bytes.firstIndex(where: { !(33...126).contains($0) }) {
            throw .malformedBech32("character \(position + 1) is a space, control or non-ASCII character")
        }
        if bytes.contains(where: { (0x41...0x5a).contains($0) }) && bytes.contains(where: { (0x61...0x7a).contains($0) }) {
            throw .mixedCase
        }
        guard let separator = bytes.lastIndex(of: UInt8(ascii: "1")) else {
            throw .malformedBech32("it has no '1' separating the prefix from the data")
        }
        guard separator > 0 else { throw .malformedBech32("it has no prefix before the '1'") }
        guard bytes.count - separator - 1 >= 6 else { throw .tooShort }
        for position in (separator + 1)..<bytes.count where !FiveBitWords.alphabet.contains(lowercased(bytes[position])) {
            throw .malformedBech32("character \(position + 1) is not a bech32 character ('1', 'b', 'i' and 'o' are excluded)")
        }
    }

    private static func readFields(_ words: ArraySlice<UInt8>) throws(BOLT11Error) -> [TaggedField] {
        var fields = [TaggedField]()
        var index = words.startIndex
        while index < words.endIndex {
            let type = words[index]
            // A field header is 3 words; fewer left means the data part was cut.
            guard words.endIndex - index >= 3 else { throw .truncatedField(tag: TaggedField.tag(type)) }
            let length = Int(words[index + 1]) << 5 | Int(words[index + 2])
            let start = index + 3
            guard words.endIndex - start >= length else { throw .truncatedField(tag: TaggedField.tag(type)) }
            fields.append(try TaggedField.decode(type: type, words: words[start..<(start + length)]))
            index = start + length
        }
        return fields
    }

    private static func requiredFields(_ fields: [TaggedField]) throws(BOLT11Error) -> (paymentHash: [UInt8], paymentSecret: [UInt8]) {
        var paymentHash: [UInt8]?
        var paymentSecret: [UInt8]?
        var hasDescription = false
        var hasDescriptionHash = false
        for field in fields {
            switch field {
            case .paymentHash(let hash): paymentHash = paymentHash ?? hash
            case .paymentSecret(let secret): paymentSecret = paymentSecret ?? secret
            case .description: hasDescription = true
            case .descriptionHash: hasDescriptionHash = true
            default: break
            }
        }
        guard let paymentHash else { throw .missingPaymentHash }
        guard let paymentSecret else { throw .missingPaymentSecret }
        switch (hasDescription, hasDescriptionHash) {
        case (false, false): throw .missingDescription
        case (true, true): throw .conflictingDescription
        default: break
        }
        return (paymentHash, paymentSecret)
    }

    private static func checkSignature(_ bytes: [UInt8], signingHash: [UInt8],
                                       fields: [TaggedField]) throws(BOLT11Error) -> (RecoverableSignature, PublicKey) {
        let recoveryID = bytes[64]
        guard RecoverableSignature.recoveryIDs.contains(recoveryID) else { throw .invalidRecoveryID(recoveryID) }
        let signature: RecoverableSignature
        do {
            signature = try RecoverableSignature(compact: Array(bytes[..<64]), recoveryID: recoveryID)
        } catch {
            throw .malformedSignature
        }
        if let stated = fields.lazy.compactMap({ if case .payeeNodeID(let key) = $0 { return key } else { return nil } }).first {
            let plain = signature.ecdsaSignature
            guard plain.isLowS else { throw .nonCanonicalSignature }
            guard plain.verify(digest: signingHash, publicKey: stated) else { throw .signatureMismatch }
            return (signature, stated)
        }
        do {
            return (signature, try signature.recoverPublicKey(digest: signingHash))
        } catch {
            throw .signatureNotRecoverable
        }
    }

    /// What the signature signs, before hashing: the HRP's bytes and the data words before
    /// the signature, "with 0 bits appended to pad the data to the next byte boundary".
    static func signingData(hrp: String, signedWords: [UInt8]) -> [UInt8] {
        // Cannot fail: words are 5-bit and padding is allowed.
        Array(hrp.utf8) + Bech32.convertBits(signedWords, from: 5, to: 8, pad: true)!
    }

    static func signingHash(hrp: String, signedWords: [UInt8]) -> [UInt8] {
        SHA256.hash(signingData(hrp: hrp, signedWords: signedWords))
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5a).contains(byte) ? byte | 0x20 : byte
    }
}
