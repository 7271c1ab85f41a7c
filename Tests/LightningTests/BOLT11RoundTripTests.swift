import Bitcoin
import XCTest
@testable import Lightning

/// Encoder and decoder together on `lnbcrt` (regtest) invoices: round trips with every
/// field, determinism, and what tampering does.
final class BOLT11RoundTripTests: XCTestCase {
    func testRegtestInvoiceWithEveryFieldRoundTrips() throws {
        let key = try BOLT11Fixtures.nodeKey()
        for includesPayee in [false, true] {
            let encoder = try BOLT11Fixtures.fullRegtestEncoder(includesPayeeNodeID: includesPayee)
            let invoice = try encoder.sign(with: key)
            XCTAssertTrue(invoice.string.hasPrefix("lnbcrt2500u1"), invoice.string)
            let decoded = try InvoiceDecoder.decode(invoice.string)
            XCTAssertEqual(decoded, invoice)
            XCTAssertEqual(decoded.fields, encoder.fields(payee: key.publicKey))

            XCTAssertEqual(decoded.currency, .regtest)
            XCTAssertEqual(decoded.amountMsat, 250_000_000)
            XCTAssertEqual(try decoded.amountSatoshis, 250_000)
            XCTAssertEqual(decoded.timestamp, BOLT11Fixtures.timestamp)
            XCTAssertEqual(decoded.paymentHash, encoder.paymentHash)
            XCTAssertEqual(decoded.paymentSecret, encoder.paymentSecret)
            XCTAssertEqual(decoded.descriptionText, "swap 7f3a: 250000 sat to bcrt1q…")
            XCTAssertNil(decoded.descriptionHash)
            XCTAssertEqual(decoded.expirySeconds, 600)
            XCTAssertEqual(decoded.expiresAt, BOLT11Fixtures.timestamp + 600)
            XCTAssertFalse(decoded.isExpired(now: BOLT11Fixtures.timestamp + 599))
            XCTAssertTrue(decoded.isExpired(now: BOLT11Fixtures.timestamp + 600))
            XCTAssertEqual(decoded.minFinalCLTVExpiryDelta, 216)
            XCTAssertEqual(decoded.fallbacks, encoder.fallbacks)
            XCTAssertTrue(decoded.fallbacks[0].encoded(for: decoded.currency.network).hasPrefix("bcrt1q"))
            XCTAssertTrue(decoded.fallbacks[1].encoded(for: decoded.currency.network).hasPrefix("bcrt1p"))
            XCTAssertEqual(decoded.routeHints, encoder.routeHints)
            XCTAssertEqual(decoded.features, encoder.features)
            XCTAssertTrue(decoded.features.requires(FeatureBits.paymentSecret))
            XCTAssertTrue(decoded.features.supports(FeatureBits.basicMPP))
            XCTAssertFalse(decoded.features.requires(FeatureBits.basicMPP))
            XCTAssertEqual(decoded.metadata, [0x01, 0xfa, 0xfa, 0xf0])
            XCTAssertEqual(decoded.statedPayeeNodeID, includesPayee ? key.publicKey : nil)
            XCTAssertEqual(decoded.payeeNodeID, key.publicKey)
            XCTAssertTrue(decoded.skippedFields.isEmpty)
            // Upper case (for QR codes) is the same invoice.
            XCTAssertEqual(try InvoiceDecoder.decode(invoice.string.uppercased()), decoded)
        }
    }

    func testSigningIsDeterministicAndFieldOrderFixed() throws {
        let key = try BOLT11Fixtures.nodeKey()
        let encoder = try BOLT11Fixtures.fullRegtestEncoder(includesPayeeNodeID: true)
        let first = try encoder.sign(with: key)
        XCTAssertEqual(try encoder.sign(with: key).string, first.string)
        XCTAssertEqual(first.fields.map(\.tag), ["p", "s", "d", "x", "c", "n", "f", "f", "f", "r", "r", "9", "m"])
    }

    func testDescriptionHashAndAnyAmountInvoice() throws {
        let key = try BOLT11Fixtures.nodeKey()
        var encoder = try BOLT11Fixtures.fullRegtestEncoder(includesPayeeNodeID: false)
        let longDescription = String(repeating: "a long order description ", count: 40)
        encoder.description = .hash(SHA256.hash(Array(longDescription.utf8)))
        encoder.amountMsat = nil
        encoder.expirySeconds = nil
        let invoice = try encoder.sign(with: key)
        XCTAssertTrue(invoice.string.hasPrefix("lnbcrt1"))
        XCTAssertNil(invoice.amountMsat)
        XCTAssertNil(try invoice.amountSatoshis)
        XCTAssertNil(invoice.descriptionText)
        XCTAssertTrue(invoice.commits(toDescription: longDescription))
        XCTAssertFalse(invoice.commits(toDescription: "something else"))
        XCTAssertNil(invoice.statedExpirySeconds)
        XCTAssertEqual(invoice.expirySeconds, 3600)
    }

    // MARK: tampering

    /// Bech32's checksum catches a change to any single character of the invoice.
    func testAnyChangedCharacterFailsTheChecksum() throws {
        let invoice = try BOLT11Fixtures.fullRegtestEncoder(includesPayeeNodeID: false).sign(with: BOLT11Fixtures.nodeKey()).string
        let characters = Array(invoice.utf8)
        let separator = characters.lastIndex(of: UInt8(ascii: "1"))!
        var checked = 0
        for position in characters.indices where position != separator {
            var changed = characters
            // A different character of the same class keeps the string well-formed otherwise.
            changed[position] = position < separator
                ? (characters[position] == UInt8(ascii: "n") ? UInt8(ascii: "m") : UInt8(ascii: "n"))
                : FiveBitWords.alphabet[(FiveBitWords.alphabet.firstIndex(of: characters[position])! + 1) % 32]
            // The checksum is checked before the prefix and amount are read.
            XCTAssertBOLT11Error(try InvoiceDecoder.decode(String(decoding: changed, as: UTF8.self)), .badChecksum)
            checked += 1
        }
        XCTAssertEqual(checked, characters.count - 1)
    }

    /// With the checksum recomputed, a changed amount is still caught: without `n` the
    /// signature recovers some other key (so the payer would pay a stranger's invoice only
    /// if it ignored the payee), with `n` it fails to verify.
    func testChangedAmountUnderAFreshChecksumChangesOrFailsThePayee() throws {
        let key = try BOLT11Fixtures.nodeKey()
        for includesPayee in [false, true] {
            let invoice = try BOLT11Fixtures.fullRegtestEncoder(includesPayeeNodeID: includesPayee).sign(with: key)
            let (_, words) = try BOLT11Fixtures.parts(invoice.string)
            let forged = BOLT11Fixtures.assemble(hrp: "lnbcrt2u", words: words)
            if includesPayee {
                XCTAssertBOLT11Error(try InvoiceDecoder.decode(forged), .signatureMismatch)
            } else {
                do {
                    let decoded = try InvoiceDecoder.decode(forged)
                    XCTAssertNotEqual(decoded.payeeNodeID, key.publicKey)
                } catch {
                    XCTAssertEqual(error, .signatureNotRecoverable)
                }
            }
        }
    }

    func testTamperedSignatureRecoversAnotherKeyOrFails() throws {
        let key = try BOLT11Fixtures.nodeKey()
        let invoice = try BOLT11Fixtures.fullRegtestEncoder(includesPayeeNodeID: false).sign(with: key)
        var differentKeys = 0
        var unrecoverable = 0
        for byte in [0, 17, 31, 32, 50, 63] {
            var compact = invoice.signature.compact
            compact[byte] ^= 0x01
            let tampered = try BOLT11Fixtures.withSignature(invoice.string, compact: compact, recoveryID: invoice.signature.recoveryID)
            do {
                let decoded = try InvoiceDecoder.decode(tampered)
                XCTAssertNotEqual(decoded.payeeNodeID, key.publicKey, "byte \(byte)")
                differentKeys += 1
            } catch {
                XCTAssertEqual(error, .signatureNotRecoverable, "byte \(byte)")
                unrecoverable += 1
            }
        }
        XCTAssertEqual(differentKeys + unrecoverable, 6)
        // The other recovery id names another key.
        let flipped = try BOLT11Fixtures.withSignature(invoice.string, compact: invoice.signature.compact,
                                                       recoveryID: invoice.signature.recoveryID ^ 1)
        XCTAssertNotEqual(try InvoiceDecoder.decode(flipped).payeeNodeID, key.publicKey)
    }

    func testTamperedSignatureWithPayeeFieldFailsVerification() throws {
        let key = try BOLT11Fixtures.nodeKey()
        let invoice = try BOLT11Fixtures.fullRegtestEncoder(includesPayeeNodeID: true).sign(with: key)
        var compact = invoice.signature.compact
        compact[40] ^= 0x80
        let tampered = try BOLT11Fixtures.withSignature(invoice.string, compact: compact, recoveryID: invoice.signature.recoveryID)
        XCTAssertBOLT11Error(try InvoiceDecoder.decode(tampered), .signatureMismatch)
    }

    func testSignatureByAnotherKeyThanTheStatedPayeeFails() throws {
        let key = try BOLT11Fixtures.nodeKey()
        let stranger = try PrivateKey([UInt8](repeating: 0x09, count: 32))
        let encoder = try BOLT11Fixtures.fullRegtestEncoder(includesPayeeNodeID: false)
        let fields = encoder.fields(payee: key.publicKey) + [.payeeNodeID(key.publicKey)]
        XCTAssertBOLT11Error(try InvoiceEncoder.sign(currency: .regtest, amountMsat: 1000, timestamp: 1,
                                                     fields: fields, with: stranger), .signatureMismatch)
    }
}
