import Bitcoin
@testable import Offers
import Transport
import XCTest

/// InvoiceRequest -> Invoice: a contact's invoice, signed by its identity, checked by the
/// payer against the contact it dialled and the amount it asked for.
final class ContactInvoiceTests: XCTestCase {
    private let contact = Fixtures.provider
    private let request = ContactInvoiceRequest(requestID: "inv-1", amountMsat: 20_000_000, description: "dinner")
    private let policy = ContactInvoicePolicy(network: .regtest)

    func testTheMessagesArePinned() {
        XCTAssertEqual(String(decoding: request.encoded, as: UTF8.self),
                       #"{"amount_msat":20000000,"description":"dinner","request_id":"inv-1","type":"InvoiceRequest"}"#)
        let invoice = ContactInvoice(requestID: "inv-1", invoice: "lnbcrt200u1fake")
        XCTAssertEqual(String(decoding: invoice.encoded, as: UTF8.self),
                       #"{"invoice":"lnbcrt200u1fake","request_id":"inv-1","type":"Invoice"}"#)
    }

    func testAnInvoiceSignedByTheContactVerifies() throws {
        let signed = Signed(signing: ContactInvoice(requestID: "inv-1", invoice: "lnbcrt200u1fake"), with: contact)
        guard case .invoice(let received) = try SwapMessage(bytes: signed.encoded) else { return XCTFail("not an invoice") }
        XCTAssertEqual(try policy.checkSignature(received, answering: request, contact: contact.pubky), "lnbcrt200u1fake")
    }

    /// Made by someone else, or changed on the way, or answering another request: refused.
    func testAnInvoiceNotTheContactsIsRefused() throws {
        let byStranger = Signed(signing: ContactInvoice(requestID: "inv-1", invoice: "lnbcrt200u1fake"), with: Fixtures.stranger)
        XCTAssertOffersError(.invalidSignature) {
            try policy.checkSignature(byStranger, answering: request, contact: contact.pubky)
        }
        let signed = Signed(signing: ContactInvoice(requestID: "inv-1", invoice: "lnbcrt200u1fake"), with: contact)
        let swapped = try Signed<ContactInvoice>(json: Fixtures.setting("invoice", to: .string("lnbcrt200u1other"), in: signed.json))
        XCTAssertOffersError(.invalidSignature) {
            try policy.checkSignature(swapped, answering: request, contact: contact.pubky)
        }
        let other = Signed(signing: ContactInvoice(requestID: "inv-2", invoice: "lnbcrt200u1fake"), with: contact)
        XCTAssertOffersError(.acceptMismatch("the invoice answers another request")) {
            try policy.checkSignature(other, answering: request, contact: contact.pubky)
        }
        // A signature made for another message type cannot be moved onto an invoice.
        let reject = Reject(requestID: "inv-1", code: .notFound, reason: "x")
        let moved = Fixtures.setting("signature", to: .string(signed.signature.hex), in: reject.json)
        XCTAssertEqual(rejectCode { try Signed<ContactInvoice>(json: moved) }, .invalidRequest)
    }

    func testTheDecodedInvoiceMustBeForTheAmountAskedOnOurNetwork() {
        func facts(network: Network = .regtest, msat: UInt64? = 20_000_000, expiresIn: UInt64 = 3_600) -> SubmarineInvoice {
            SubmarineInvoice(network: network, paymentHash: Fixtures.paymentHash, amountMsat: msat,
                             payeeNodeID: Fixtures.key(0x99).publicKey, expiresAtUnix: Fixtures.now + expiresIn,
                             minFinalCLTVExpiry: 18)
        }
        XCTAssertNoThrow(try policy.check(facts(), answering: request, nowUnix: Fixtures.now))
        XCTAssertOffersError(.acceptMismatch("the invoice is not for the 20000000 msat asked")) {
            try policy.check(facts(msat: 19_999_999), answering: request, nowUnix: Fixtures.now)
        }
        XCTAssertOffersError(.acceptMismatch("the invoice is not for the 20000000 msat asked")) {
            try policy.check(facts(msat: nil), answering: request, nowUnix: Fixtures.now)
        }
        XCTAssertOffersError(.acceptMismatch("the invoice is for mainnet, not regtest")) {
            try policy.check(facts(network: .mainnet), answering: request, nowUnix: Fixtures.now)
        }
        XCTAssertOffersError(.acceptMismatch("the invoice expires in less than 60 s")) {
            try policy.check(facts(expiresIn: 59), answering: request, nowUnix: Fixtures.now)
        }
    }

    /// A contact refuses amounts outside what it takes, with `amount_out_of_range`.
    func testAContactRefusesAmountsOutsideItsLimits() {
        let limits = ContactInvoiceLimits(minimumMsat: 1_000, maximumMsat: 10_000_000)
        XCTAssertNoThrow(try limits.check(ContactInvoiceRequest(requestID: "r", amountMsat: 10_000_000, description: "")))
        XCTAssertNoThrow(try limits.check(ContactInvoiceRequest(requestID: "r", amountMsat: 1_000, description: "")))
        for amount: Int64 in [999, 10_000_001] {
            let error = OffersError.invoiceAmountOutOfRange(amountMsat: amount, minimumMsat: 1_000, maximumMsat: 10_000_000)
            XCTAssertOffersError(error) { try limits.check(ContactInvoiceRequest(requestID: "r", amountMsat: amount, description: "")) }
            let reject = Reject(requestID: "r", error: error)
            XCTAssertEqual(reject.code, .amountOutOfRange)
            XCTAssertEqual(reject.reason, "an invoice for \(amount) msat is outside the 1000 to 10000000 msat this node accepts over Lightning")
        }
        XCTAssertEqual(Reject(requestID: "r", error: .noLightning).code, .notFound)
    }

    func testMalformedInvoiceRequestsAreRefused() {
        let good = request.json
        let cases: [(JSONValue, OffersError)] = [
            (Fixtures.setting("amount_msat", to: .integer(0), in: good), .valueOutOfRange(field: "amount_msat")),
            (Fixtures.setting("amount_msat", to: .integer(-5), in: good), .valueOutOfRange(field: "amount_msat")),
            (Fixtures.setting("amount_msat", to: .integer(2_100_000_000_000_000_001), in: good), .valueOutOfRange(field: "amount_msat")),
            (Fixtures.setting("amount_msat", to: .number("1e3"), in: good), .wrongType(field: "amount_msat", expected: "a plain integer")),
            (Fixtures.setting("amount_msat", to: .string("1000"), in: good), .wrongType(field: "amount_msat", expected: "an integer")),
            (Fixtures.setting("amount_msat", to: nil, in: good), .missingField("amount_msat")),
            (Fixtures.setting("description", to: nil, in: good), .missingField("description")),
            (Fixtures.setting("description", to: .integer(1), in: good), .wrongType(field: "description", expected: "a string")),
            (Fixtures.setting("description", to: .string(String(repeating: "é", count: 320)), in: good),
             .valueOutOfRange(field: "description")),
        ]
        for (json, expected) in cases {
            XCTAssertOffersError(expected) { try ContactInvoiceRequest(json: json) }
            XCTAssertEqual(rejectCode { try SwapMessage(json: json) }, .invalidRequest)
        }
        XCTAssertNoThrow(try ContactInvoiceRequest(json: Fixtures.setting("description", to: .string(String(repeating: "a", count: 639)), in: good)))
        let invoice = Signed(signing: ContactInvoice(requestID: "r", invoice: "x"), with: contact).json
        XCTAssertOffersError(.valueOutOfRange(field: "invoice")) {
            try Signed<ContactInvoice>(json: Fixtures.setting("invoice", to: .string(""), in: invoice))
        }
        XCTAssertOffersError(.missingField("signature")) {
            try Signed<ContactInvoice>(json: Fixtures.setting("signature", to: nil, in: invoice))
        }
    }
}
