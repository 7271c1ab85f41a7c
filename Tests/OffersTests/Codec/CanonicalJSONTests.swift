import Bitcoin
@testable import Offers
import Transport
import XCTest

/// The canonical form signatures are made over: pinned bytes for a fixed message, and the
/// escaping and ordering rules of docs/SWAP1.md.
final class CanonicalJSONTests: XCTestCase {
    func testFixedQuoteEncodesToPinnedBytes() {
        let quote = Quote(requestID: "7f3a", quoteID: "q-1", offerID: "o-1", amountSat: 100_000, serviceFeeSat: 700,
                          onchainFeeSat: 743, feeRateSatPerVByte: 2, htlcTimeoutBlocks: 144, requiredConfirmations: 1,
                          validUntilUnix: 1_700_000_300)
        let expected = #"{"amount_sat":100000,"direction":"ln_to_onchain","fee_rate_sat_vb":2,"fee_sat":1443,"#
            + #""htlc_timeout_blocks":144,"offer_id":"o-1","onchain_fee_sat":743,"quote_id":"q-1","request_id":"7f3a","#
            + #""required_confirmations":1,"service_fee_sat":700,"total_sat":101443,"type":"Quote","#
            + #""valid_until_unix":1700000300}"#
        XCTAssertEqual(String(decoding: quote.encoded, as: UTF8.self), expected)
    }

    func testFixedSignedOfferIsPinned() throws {
        // ed25519 is deterministic: a fixed key and message give a fixed signature.
        let offer = Fixtures.offer()
        let signed = Signed(signing: offer, with: Fixtures.provider)
        let text = String(decoding: signed.encoded, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix(#"{"base_fee_sat":500,"directions":["ln_to_onchain"],"features":["taproot_boltz","p2wsh","preimage_push"],"fee_ppm":2000,"fee_rate_sat_vb":2,"htlc_timeout_blocks":144,"max_amount_sat":1000000,"min_amount_sat":10000,"network":"regtest","offer_id":"offer-1","onchain_fee_sat":743,"protocol_version":1,"provider_pkarr":""#), text)
        XCTAssertTrue(text.contains(#","signature":""# + signed.signature.hex + #"","type":"Offer","valid_until_unix":1700000600}"#))
        XCTAssertEqual(signed.signedBytes, offer.encoded, "the signature covers the message without its signature")
        XCTAssertFalse(String(decoding: signed.signedBytes, as: UTF8.self).contains("signature"))
    }

    func testKeysSortByUTF8BytesAndNothingExtraIsEscaped() throws {
        let value = JSONValue.object([
            "b": .integer(2), "a": .array([.bool(true), .null, .number("1.5e3")]), "é": .string("x"), "Z": .string("y"),
            "ab": .string("q\"b\\s/\u{7F}é\u{1F600}"), "ctl": .string("\u{8}\u{C}\n\r\t\u{0}\u{1F}"),
        ])
        let expected = #"{"Z":"y","a":[true,null,1.5e3],"ab":"q\"b\\s/"# + "\u{7F}é\u{1F600}" + #"","b":2,"ctl":"\b\f\n\r\t\u0000\u001f","é":"x"}"#
        XCTAssertEqual(value.canonicalString, expected)
        // Parsing canonical bytes and encoding again is the identity.
        XCTAssertEqual(try JSONParser.parse(value.canonicalBytes).canonicalBytes, value.canonicalBytes)
        // Any spelling of the same value has one canonical form.
        let spaced = try Fixtures.json(#"{ "b" : 2 , "a" : [ true , null , 1.5e3 ] , "ab":"q\"b\\s\/\u007fé😀", "#
            + #""ctl":"\u0008\u000C\u000a\r\t\u0000\u001F", "Z":"y", "\u00e9":"x" }"#)
        XCTAssertEqual(spaced.canonicalString, expected)
    }
}
