import Bitcoin
@testable import Offers
import Transport
import XCTest

/// The swap/1 parts of cooperative submarine swaps (issue 17): `CoopRefundRequest`,
/// `CoopRefundOffer` (a push) and the SwapRequest's `features`: round trips, pinned
/// canonical bytes, malformed fields refused naming them, and older peers unaffected (a
/// request without features is byte for byte what it was, an unknown field is ignored).
final class CoopRefundMessageTests: XCTestCase {
    private let request = Fixtures.coopRefundRequest()

    func testTheRefundRequestAndTheOfferRoundTripAndThePushHasNoRequestID() throws {
        for message in [SwapMessage.coopRefundRequest(request), .coopRefundOffer(CoopRefundOffer(swapID: "swap-2"))] {
            let decoded = try SwapMessage(bytes: message.encoded)
            XCTAssertEqual(decoded, message)
            XCTAssertEqual(decoded.encoded, message.encoded)
        }
        XCTAssertEqual(SwapMessage.coopRefundRequest(request).requestID, "r10")
        XCTAssertNil(SwapMessage.coopRefundOffer(CoopRefundOffer(swapID: "swap-2")).requestID, "a push")
        XCTAssertOffersError(.unexpectedMessageType(expected: "CoopRefundRequest")) {
            try CoopRefundRequest(bytes: Fixtures.coopClaimRequest().encoded)
        }
    }

    func testCanonicalBytesArePinned() {
        let nonce = Fixtures.publicNonce.bytes.hex
        XCTAssertEqual(String(decoding: request.encoded, as: UTF8.self),
                       #"{"pubnonce":""# + nonce + #"","refund_tx":""# + Fixtures.claimTransaction.serialized.hex
                       + #"","request_id":"r10","swap_id":"swap-2","type":"CoopRefundRequest"}"#)
        XCTAssertEqual(String(decoding: CoopRefundOffer(swapID: "swap-2").encoded, as: UTF8.self),
                       #"{"swap_id":"swap-2","type":"CoopRefundOffer"}"#)
    }

    func testMalformedRefundRequestFieldsAreRefused() throws {
        let json = request.json
        let huge = Transaction(inputs: Fixtures.claimTransaction.inputs,
                               outputs: Array(repeating: Fixtures.claimTransaction.outputs[0], count: 120))
        let cases: [(String, JSONValue, OffersError)] = [
            ("refund_tx", .string("0200zz"), .wrongType(field: "refund_tx", expected: "hex")),
            ("refund_tx", .string(""), .valueOutOfRange(field: "refund_tx")),
            ("refund_tx", .string(huge.serialized.hex), .valueOutOfRange(field: "refund_tx")),
            ("refund_tx", .string((Fixtures.claimTransaction.serialized + [0x00]).hex),
             .wrongType(field: "refund_tx", expected: "a raw Bitcoin transaction")),
            ("pubnonce", .string(String(repeating: "00", count: 66)),
             .wrongType(field: "pubnonce", expected: "a MuSig2 public nonce (two compressed secp256k1 points)")),
            ("swap_id", .string(""), .valueOutOfRange(field: "swap_id")),
        ]
        for (key, value, expected) in cases {
            XCTAssertOffersError(expected) { try CoopRefundRequest(json: Fixtures.setting(key, to: value, in: json)) }
        }
        for key in ["request_id", "swap_id", "pubnonce", "refund_tx"] {
            XCTAssertOffersError(.missingField(key)) { try CoopRefundRequest(json: Fixtures.setting(key, to: nil, in: json)) }
        }
        XCTAssertOffersError(.missingField("swap_id")) {
            try CoopRefundOffer(json: Fixtures.setting("swap_id", to: nil, in: CoopRefundOffer(swapID: "s").json))
        }
    }

    /// A client that cooperates lists `musig2`; one that does not sends the request as
    /// before, without the field, and an older provider reads either (unknown fields are
    /// ignored; the signed accept does not change).
    func testTheSwapRequestsFeaturesAreOptionalAndWrittenOnlyWhenThereAreSome() throws {
        let plain = Fixtures.submarineRequest()
        XCTAssertNil(plain.json["features"], "without features the request is what it was")
        XCTAssertEqual(plain.features, [])
        XCTAssertFalse(plain.cooperates)
        let cooperative = SubmarineSwapRequest(requestID: "req-7", quoteID: "quote-2", invoice: "lnbcrt1000u1fake",
                                               refundPublicKey: Fixtures.clientRefundKey.publicKey, features: [OfferFeature.musig2])
        XCTAssertEqual(cooperative.json["features"], .array([.string("musig2")]))
        XCTAssertTrue(cooperative.cooperates)
        XCTAssertEqual(try SubmarineSwapRequest(bytes: cooperative.encoded), cooperative)
        let unknown = Fixtures.setting("features", to: .array([.string("musig2"), .string("future_thing")]), in: plain.json)
        XCTAssertTrue(try SubmarineSwapRequest(json: unknown).cooperates, "an unknown feature is kept and ignored")
        XCTAssertOffersError(.wrongType(field: "features", expected: "an array")) {
            try SubmarineSwapRequest(json: Fixtures.setting("features", to: .string("musig2"), in: plain.json))
        }
    }
}
