import Bitcoin
import XCTest
@testable import Lightning

/// The BOLT's reader requirements one at a time, beyond its own examples: each test makes
/// an invoice that breaks one rule (signed, with a valid checksum, so only that rule can
/// refuse it) and names the rule.
final class BOLT11ReaderRuleTests: XCTestCase {
    private func sign(_ fields: [TaggedField], amountMsat: UInt64? = 1_000) throws -> Invoice {
        try InvoiceEncoder.sign(currency: .regtest, amountMsat: amountMsat, timestamp: BOLT11Fixtures.timestamp,
                                fields: fields, with: BOLT11Fixtures.nodeKey())
    }

    private var hash: [UInt8] { [UInt8](repeating: 0xaa, count: 32) }
    private var secret: [UInt8] { [UInt8](repeating: 0x11, count: 32) }
    private var minimal: [TaggedField] { [.paymentHash(hash), .paymentSecret(secret), .description("x")] }

    // MARK: human-readable part

    func testAmountMultipliersAndShortestForm() throws {
        let cases: [(String, UInt64)] = [
            ("1", 100_000_000_000), ("20m", 2_000_000_000), ("2500u", 250_000_000), ("10n", 1_000),
            ("1n", 100), ("10p", 1), ("9678785340p", 967_878_534), ("21000000", 2_100_000_000_000_000_000),
        ]
        for (text, msat) in cases {
            XCTAssertEqual(try InvoiceAmount.parse(Substring(text)), msat, text)
            XCTAssertEqual(try InvoiceAmount.format(msat), text, text)
        }
        // Non-shortest forms still read (the shortest form is only a writer's SHOULD).
        XCTAssertEqual(try InvoiceAmount.parse("2000000u"), 200_000_000_000)
        XCTAssertEqual(try InvoiceAmount.parse("1000p"), 100)
        XCTAssertNil(try InvoiceAmount.parse(""))
    }

    func testAmountFormatParsesBackForManyValues() throws {
        var msat: UInt64 = 1
        for _ in 0..<200 {
            XCTAssertEqual(try InvoiceAmount.parse(Substring(InvoiceAmount.format(msat))), msat)
            msat = msat &* 7 &+ 13
            if msat > InvoiceAmount.maxMsat { msat %= InvoiceAmount.maxMsat }
        }
    }

    func testMalformedAmountsFail() {
        XCTAssertBOLT11Error(try InvoiceAmount.parse("2500x"), .invalidMultiplier("x"))
        XCTAssertBOLT11Error(try InvoiceAmount.parse("2500000001p"), .subMillisatoshiAmount)
        XCTAssertBOLT11Error(try InvoiceAmount.parse("1p"), .subMillisatoshiAmount)
        XCTAssertBOLT11Error(try InvoiceAmount.parse("99999999999999999999999"), .amountTooLarge)
        XCTAssertBOLT11Error(try InvoiceAmount.parse("21000001"), .amountTooLarge)
        XCTAssertBOLT11Error(try InvoiceAmount.parse("200000000000m"), .amountTooLarge)
        for text in ["0", "0m", "025m", "m", "2m5", "1mm"] {
            XCTAssertThrowsError(try InvoiceAmount.parse(Substring(text)), text) {
                guard case .invalidAmount = $0 as? BOLT11Error else { return XCTFail("\(text): \($0)") }
            }
        }
        XCTAssertBOLT11Error(try InvoiceAmount.format(0),
                             .unencodable("an invoice amount must be positive; omit it for an any-amount invoice"))
    }

    func testAmountSatoshisRefusesMillisatoshiRemainders() throws {
        XCTAssertEqual(try sign(minimal, amountMsat: 2_000).amountSatoshis, 2)
        XCTAssertBOLT11Error(try sign(minimal, amountMsat: 1_500).amountSatoshis, .subSatoshiAmount(msat: 1_500))
        XCTAssertBOLT11Error(try sign(minimal, amountMsat: 1).amountSatoshis, .subSatoshiAmount(msat: 1))
    }

    func testCurrencyPrefixes() throws {
        for currency in InvoiceCurrency.allCases {
            let invoice = try InvoiceEncoder.sign(currency: currency, amountMsat: 10_000, timestamp: 1, fields: minimal,
                                                  with: BOLT11Fixtures.nodeKey())
            XCTAssertTrue(invoice.string.hasPrefix(currency.prefix + "100n1"), invoice.string)
            XCTAssertEqual(try InvoiceDecoder.decode(invoice.string).currency, currency)
            XCTAssertEqual(InvoiceCurrency(network: currency.network), currency)
        }
        let (_, words) = try BOLT11Fixtures.parts(try sign(minimal).string)
        XCTAssertBOLT11Error(try InvoiceDecoder.decode(BOLT11Fixtures.assemble(hrp: "lnltc10n", words: words)),
                             .unknownCurrency(prefix: "lnltc"))
        XCTAssertBOLT11Error(try InvoiceDecoder.decode(BOLT11Fixtures.assemble(hrp: "lnbcx", words: words)),
                             .unknownCurrency(prefix: "lnbcx"))
    }

    // MARK: envelope

    func testBech32mChecksumIsNotAnInvoiceChecksum() throws {
        let (hrp, words) = try BOLT11Fixtures.parts(try sign(minimal).string)
        XCTAssertBOLT11Error(try InvoiceDecoder.decode(Bech32.encode(hrp: hrp, data: words, encoding: .bech32m)), .badChecksum)
    }

    func testLongerThanBIP173LimitIsFineButAbsurdLengthIsNot() throws {
        let invoice = try sign(minimal + [.description(String(repeating: "d", count: 600))])
        XCTAssertGreaterThan(invoice.string.count, 1000)
        XCTAssertEqual(try InvoiceDecoder.decode(invoice.string).string, invoice.string)
        XCTAssertThrowsError(try InvoiceDecoder.decode("lnbc1" + String(repeating: "q", count: 8000))) {
            guard case .malformedBech32 = $0 as? BOLT11Error else { return XCTFail("\($0)") }
        }
    }

    func testNonBech32CharacterIsMalformedNotAChecksumError() throws {
        var invoice = try sign(minimal).string
        invoice.insert("b", at: invoice.index(invoice.startIndex, offsetBy: 20))
        XCTAssertThrowsError(try InvoiceDecoder.decode(invoice)) {
            guard case .malformedBech32 = $0 as? BOLT11Error else { return XCTFail("\($0)") }
        }
    }

    // MARK: data part and fields

    func testRecoveryIDAboveThreeFails() throws {
        let invoice = try sign(minimal)
        for id: UInt8 in [4, 31, 255] {
            let tampered = try BOLT11Fixtures.withSignature(invoice.string, compact: invoice.signature.compact, recoveryID: id)
            XCTAssertBOLT11Error(try InvoiceDecoder.decode(tampered), .invalidRecoveryID(id))
        }
    }

    func testSignatureWithROutOfRangeIsMalformed() throws {
        let invoice = try sign(minimal)
        let tampered = try BOLT11Fixtures.withSignature(invoice.string, compact: [UInt8](repeating: 0xff, count: 64), recoveryID: 0)
        XCTAssertBOLT11Error(try InvoiceDecoder.decode(tampered), .malformedSignature)
    }

    func testRequiredFields() throws {
        XCTAssertBOLT11Error(try sign([.paymentSecret(secret), .description("x")]), .missingPaymentHash)
        XCTAssertBOLT11Error(try sign([.paymentHash(hash), .description("x")]), .missingPaymentSecret)
        XCTAssertBOLT11Error(try sign([.paymentHash(hash), .paymentSecret(secret)]), .missingDescription)
        XCTAssertBOLT11Error(try sign(minimal + [.descriptionHash(hash)]), .conflictingDescription)
    }

    /// Wrong-length `p`, `h`, `s`, `n`, an unknown type and an `f` of unknown version are
    /// skipped, and the first usable field of a kind wins.
    func testFieldsTheReaderSkips() throws {
        let words52 = [UInt8](repeating: 1, count: 52)
        let skipped: [TaggedField] = [
            .skipped(type: TaggedField.paymentHashType, words: Array(words52.dropLast())),
            .skipped(type: TaggedField.descriptionHashType, words: words52 + [0]),
            .skipped(type: TaggedField.paymentSecretType, words: [3]),
            .skipped(type: TaggedField.payeeNodeIDType, words: words52),
            .skipped(type: TaggedField.fallbackType, words: [19] + [UInt8](repeating: 0, count: 32)),
            .skipped(type: 10, words: [1, 2, 3]),
        ]
        let later: [TaggedField] = [.paymentHash([UInt8](repeating: 0xbb, count: 32)), .expiry(5), .expiry(9)]
        let invoice = try sign(skipped + minimal + later)
        XCTAssertEqual(invoice.fields, skipped + minimal + later)
        XCTAssertEqual(invoice.skippedFields.count, 6)
        XCTAssertEqual(invoice.paymentHash, hash)
        XCTAssertEqual(invoice.expirySeconds, 5)
        XCTAssertEqual(invoice.payeeNodeID, try BOLT11Fixtures.nodeKey().publicKey)
    }

    func testNFieldThatIsNotAKeyIsSkippedAndTheSignatureRecovered() throws {
        // 33 bytes with prefix 0x05: right length, not a public key.
        let notAKey = TaggedField.skipped(type: TaggedField.payeeNodeIDType,
                                          words: FiveBitWords.fromBytes([0x05] + [UInt8](repeating: 1, count: 32)))
        let invoice = try sign(minimal + [notAKey])
        XCTAssertNil(invoice.statedPayeeNodeID)
        XCTAssertEqual(invoice.payeeNodeID, try BOLT11Fixtures.nodeKey().publicKey)
    }

    func testFieldRunningPastTheSignatureIsTruncated() throws {
        let (hrp, words) = try BOLT11Fixtures.parts(try sign(minimal).string)
        // A field header announcing 1023 words where only the signature follows.
        let data = Array(words.prefix(7)) + [TaggedField.descriptionType, 31, 31] + Array(words.suffix(InvoiceDecoder.signatureWords))
        XCTAssertBOLT11Error(try InvoiceDecoder.decode(BOLT11Fixtures.assemble(hrp: hrp, words: data)), .truncatedField(tag: "d"))
    }

    func testDescriptionThatIsNotUTF8Fails() throws {
        let bad = TaggedField.skipped(type: TaggedField.descriptionType, words: FiveBitWords.fromBytes([0xff, 0xfe]))
        XCTAssertBOLT11Error(try sign([.paymentHash(hash), .paymentSecret(secret), bad]),
                             .malformedField(tag: "d", reason: "description is not valid UTF-8"))
    }

    // MARK: features

    func testUnknownEvenFeatureFailsAndUnknownOddIsIgnored() throws {
        XCTAssertBOLT11Error(try sign(minimal + [.features(FeatureBits(bits: [8, 14, 100]))]), .unknownRequiredFeature(bit: 100))
        let invoice = try sign(minimal + [.features(FeatureBits(bits: [8, 14, 101, 255]))])
        XCTAssertEqual(invoice.features.bits, [8, 14, 101, 255])
    }

    func testFeatureDependencyMustBeSet() throws {
        XCTAssertBOLT11Error(try sign(minimal + [.features(FeatureBits(bits: [8, 17]))]),
                             .missingFeatureDependency(feature: 16, requires: 14))
        XCTAssertNoThrow(try sign(minimal + [.features(FeatureBits(bits: [8, 15, 17]))]))
    }

    func testFeatureWordsAreMinimalAndReadBack() {
        let bits = FeatureBits(bits: [0, 4, 5, 9, 14, 99])
        XCTAssertEqual(bits.words.count, 20)
        XCTAssertEqual(FeatureBits(words: ArraySlice(bits.words)), bits)
        XCTAssertEqual(FeatureBits(words: ArraySlice([0, 0] + bits.words)), bits, "leading zero words change nothing")
        XCTAssertEqual(FeatureBits(bits: []).words, [])
    }

    // MARK: encoder limits

    func testEncoderRefusesWhatCannotBeWritten() throws {
        XCTAssertThrowsError(try sign(minimal + [.description(String(repeating: "a", count: 640))])) {
            guard case .unencodable = $0 as? BOLT11Error else { return XCTFail("\($0)") }
        }
        XCTAssertNoThrow(try sign([.paymentHash(hash), .paymentSecret(secret), .description(String(repeating: "a", count: 639))]))
        XCTAssertThrowsError(try sign([.paymentHash([1, 2, 3]), .paymentSecret(secret), .description("x")])) {
            guard case .unencodable = $0 as? BOLT11Error else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try sign(minimal + [.fallback(.p2wpkh(pubkeyHash: [1, 2]))])) {
            guard case .unencodable = $0 as? BOLT11Error else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try InvoiceEncoder.sign(currency: .regtest, amountMsat: 1000, timestamp: 1 << 35,
                                                     fields: minimal, with: BOLT11Fixtures.nodeKey())) {
            guard case .unencodable = $0 as? BOLT11Error else { return XCTFail("\($0)") }
        }
    }

    func testLargeNumbersInXAndC() throws {
        let invoice = try sign(minimal + [.expiry(UInt64.max), .minFinalCLTVExpiryDelta(0)])
        XCTAssertEqual(invoice.expirySeconds, UInt64.max)
        XCTAssertEqual(invoice.expiresAt, UInt64.max, "saturates instead of wrapping")
        XCTAssertEqual(invoice.minFinalCLTVExpiryDelta, 0)
        let tooBig = TaggedField.skipped(type: TaggedField.expiryType, words: [UInt8](repeating: 31, count: 13))
        XCTAssertBOLT11Error(try sign(minimal + [tooBig]), .malformedField(tag: "x", reason: "number does not fit in 64 bits"))
    }
}
