import Bitcoin
import Lightning
import Offers
@testable import PeerNode
import XCTest

/// Real BOLT11 invoices, signed by the encoder and read by the decoder, through the
/// provider's submarine rules and the payer's contact-invoice check.
final class SubmarineInvoiceDecodingTests: XCTestCase {
    private static let payeeKey = try! PrivateKey([UInt8](repeating: 0x99, count: 32))
    private static let providerNodeKey = try! PrivateKey([UInt8](repeating: 0x88, count: 32))
    private static let preimage = [UInt8](repeating: 0x07, count: 32)
    private static let now: UInt64 = 1_700_000_000

    private static func invoice(amountMsat: UInt64? = 100_000_000, minFinal: UInt64 = 40, expiry: UInt64? = 3_600,
                                currency: InvoiceCurrency = .regtest, signer: PrivateKey = payeeKey) throws -> Invoice {
        try InvoiceEncoder(currency: currency, amountMsat: amountMsat, timestamp: now, paymentHash: SHA256.hash(preimage),
                           paymentSecret: [UInt8](repeating: 0x05, count: 32), description: .text("erin"),
                           expirySeconds: expiry, minFinalCLTVExpiryDelta: minFinal).sign(with: signer)
    }

    private static func quote(amountSat: Int64 = 100_000, hash: [UInt8]? = SHA256.hash(preimage)) -> Quote {
        Quote(requestID: "r", quoteID: "q", offerID: "o", direction: .onchainToLightning, amountSat: amountSat,
              serviceFeeSat: 550, onchainFeeSat: 380, feeRateSatPerVByte: 2, htlcTimeoutBlocks: 144,
              requiredConfirmations: 1, validUntilUnix: now + 300, paymentHash: hash)
    }

    private let rules = SubmarineRules(network: .regtest, providerNodeID: providerNodeKey.publicKey)

    func testTheFactsAreReadFromTheSignedInvoice() throws {
        let invoice = try Self.invoice()
        let facts = try SubmarineInvoice(bolt11: invoice.string)
        XCTAssertEqual(facts.network, .regtest)
        XCTAssertEqual(facts.paymentHash, SHA256.hash(Self.preimage))
        XCTAssertEqual(facts.amountMsat, 100_000_000)
        XCTAssertEqual(facts.payeeNodeID, Self.payeeKey.publicKey)
        XCTAssertEqual(facts.expiresAtUnix, Self.now + 3_600)
        XCTAssertEqual(facts.minFinalCLTVExpiry, 40)
        // 288 blocks: the limit at the latest planned payment (1,013) is 1,288 − 1,013 − 12 = 263.
        XCTAssertEqual(try rules.check(facts, quote: Self.quote(), timeoutHeight: 1_288, tipHeight: 1_000, nowUnix: Self.now), 263)
        // BOLT11's defaults when the fields are absent: one hour, 18 blocks.
        let bare = SubmarineInvoice(try Self.invoice(minFinal: 18, expiry: nil))
        XCTAssertEqual(bare.expiresAtUnix, Self.now + 3_600)
        XCTAssertEqual(bare.minFinalCLTVExpiry, 18)
    }

    func testTheProviderRefusesRealInvoicesThatBreakItsRules() throws {
        func refusal(_ invoice: Invoice, quote: Quote = SubmarineInvoiceDecodingTests.quote()) -> SubmarineRefusal? {
            do {
                _ = try rules.check(SubmarineInvoice(invoice), quote: quote, timeoutHeight: 1_288, tipHeight: 1_000, nowUnix: Self.now)
                return nil
            } catch { return error }
        }
        XCTAssertEqual(refusal(try Self.invoice(signer: Self.providerNodeKey)), .paysProvider)
        XCTAssertEqual(refusal(try Self.invoice(amountMsat: nil)), .noAmount)
        XCTAssertEqual(refusal(try Self.invoice(amountMsat: 100_000_001)), .amountMismatch(invoiceMsat: 100_000_001, quotedSat: 100_000))
        XCTAssertEqual(refusal(try Self.invoice(currency: .testnet)), .wrongNetwork(invoice: "testnet", provider: "regtest"))
        XCTAssertEqual(refusal(try Self.invoice(expiry: 600)), .expiresTooSoon(expiresAtUnix: Self.now + 600, neededUntilUnix: Self.now + 2_400))
        XCTAssertNil(refusal(try Self.invoice(minFinal: 100)), "263 − 160 for the route − 3")
        XCTAssertEqual(refusal(try Self.invoice(minFinal: 101)),
                       .finalCLTVTooLong(minFinalCLTVExpiry: 101, routeCLTVBlocks: 160, cltvLimit: 263))
        XCTAssertEqual(refusal(try Self.invoice(), quote: Self.quote(hash: [UInt8](repeating: 1, count: 32))), .hashMismatch)
    }

    /// A string that is not a signed invoice never becomes facts.
    func testAnAlteredInvoiceIsNotRead() throws {
        let text = try Self.invoice().string
        var characters = Array(text)
        let index = characters.count - 10
        characters[index] = characters[index] == "q" ? "p" : "q"
        XCTAssertThrowsError(try SubmarineInvoice(bolt11: String(characters)))
        XCTAssertThrowsError(try SubmarineInvoice(bolt11: "lnbcrt1nonsense"))
    }

    /// The payer's check of a contact's invoice, on a real one.
    func testThePayerChecksAContactsRealInvoice() throws {
        let request = ContactInvoiceRequest(requestID: "i", amountMsat: 100_000_000, description: "erin")
        let policy = ContactInvoicePolicy(network: .regtest)
        XCTAssertNoThrow(try policy.check(SubmarineInvoice(try Self.invoice()), answering: request, nowUnix: Self.now))
        XCTAssertThrowsError(try policy.check(SubmarineInvoice(try Self.invoice(amountMsat: 99_000_000)), answering: request,
                                              nowUnix: Self.now))
    }
}
