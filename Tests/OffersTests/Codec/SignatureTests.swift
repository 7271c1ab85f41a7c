import Bitcoin
@testable import Offers
import Transport
import XCTest

/// Offers, quotes and accepts are signed by the provider over their canonical JSON; any
/// change to a signed field, or another signer, fails verification.
final class SignatureTests: XCTestCase {
    func testSignaturesVerifyAgainstTheProvider() throws {
        let offer = Signed(signing: Fixtures.offer(), with: Fixtures.provider)
        XCTAssertNoThrow(try offer.verify(by: Fixtures.provider.pubky))
        XCTAssertEqual(offer.signature.count, 64)
        let received = try Signed<Offer>(bytes: offer.encoded)
        XCTAssertNoThrow(try received.verify(by: received.body.providerPubky))
        let quote = try Signed<Quote>(bytes: Signed(signing: Fixtures.quote(), with: Fixtures.provider).encoded)
        XCTAssertNoThrow(try quote.verify(by: Fixtures.provider.pubky))
        let accept = try Signed<SwapAccept>(bytes: Signed(signing: Fixtures.accept(), with: Fixtures.provider).encoded)
        XCTAssertNoThrow(try accept.verify(by: Fixtures.provider.pubky))
    }

    func testAnotherSignerFails() throws {
        let offer = Signed(signing: Fixtures.offer(), with: Fixtures.stranger)
        XCTAssertOffersError(.invalidSignature) { try offer.verify(by: Fixtures.provider.pubky) }
    }

    func testEveryTamperedFieldFails() throws {
        let signed = Signed(signing: Fixtures.quote(), with: Fixtures.provider)
        guard case .object(let members) = signed.json else { return XCTFail("not an object") }
        for (key, value) in members where key != "signature" {
            let changed: JSONValue
            switch value {
            case .number(let text): changed = .number(text == "0" ? "1" : String(text.dropLast()) + (text.hasSuffix("9") ? "8" : "9"))
            case .string(let text): changed = .string(text + "x")
            default: changed = .null
            }
            let tampered = Fixtures.setting(key, to: changed, in: signed.json)
            guard let decoded = try? Signed<Quote>(json: tampered) else { continue } // e.g. an unknown direction still decodes
            XCTAssertOffersError(.invalidSignature, { try decoded.verify(by: Fixtures.provider.pubky) })
        }
        // A field added after signing is covered too.
        let extra = try Signed<Quote>(json: Fixtures.setting("bonus", to: .integer(1), in: signed.json))
        XCTAssertFalse(extra.isSigned(by: Fixtures.provider.pubky))
        // A flipped signature bit fails.
        var bytes = signed.signature
        bytes[0] ^= 1
        let flipped = try Signed<Quote>(json: Fixtures.setting("signature", to: .string(bytes.hex), in: signed.json))
        XCTAssertFalse(flipped.isSigned(by: Fixtures.provider.pubky))
    }

    func testUnknownFieldsSignedByTheProviderStillVerify() throws {
        // A newer provider may sign fields this node does not know; they stay covered.
        var members = Fixtures.offer().json.objectValue!
        members["new_term"] = .string("value")
        let unsigned = JSONValue.object(members)
        let signature = Fixtures.provider.sign(unsigned.canonicalBytes)
        let wire = Fixtures.setting("signature", to: .string(signature.hex), in: unsigned)
        let received = try Signed<Offer>(bytes: wire.canonicalBytes)
        XCTAssertEqual(received.body, Fixtures.offer())
        XCTAssertNoThrow(try received.verify(by: Fixtures.provider.pubky))
        XCTAssertEqual(received.encoded, wire.canonicalBytes, "kept as received, unknown field included")
    }

    func testSignatureIsNotMovableAcrossMessageTypes() throws {
        let signed = Signed(signing: Fixtures.offer(), with: Fixtures.provider)
        var members = signed.json.objectValue!
        members["type"] = .string("Quote")
        XCTAssertThrowsError(try Signed<Offer>(json: .object(members)))
        XCTAssertOffersError(.wrongType(field: "signature", expected: "hex")) {
            try Signed<Offer>(json: Fixtures.setting("signature", to: .string("xyz"), in: signed.json))
        }
    }
}
