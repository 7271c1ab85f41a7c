import Bitcoin
import HTLC
@testable import Offers
import Transport
import XCTest

/// Every swap/1 message survives encode -> bytes -> decode unchanged, and the bytes are
/// canonical (encoding again gives the same bytes).
final class CodecRoundTripTests: XCTestCase {
    func testEveryMessageTypeRoundTrips() throws {
        let messages = Fixtures.everyMessage
        let types = Set(messages.map { try! FieldReader($0.json).string("type") })
        XCTAssertEqual(types, Set(SwapMessage.knownTypes), "the fixture list covers every message type")
        XCTAssertEqual(SwapMessage.knownTypes.count, 21)
        for message in messages {
            let bytes = message.encoded
            let decoded = try SwapMessage(bytes: bytes)
            XCTAssertEqual(decoded, message)
            XCTAssertEqual(decoded.encoded, bytes, "re-encoding is byte-identical")
            XCTAssertEqual(try JSONParser.parse(bytes).canonicalBytes, bytes)
        }
    }

    func testTypedDecodersReadTheirOwnType() throws {
        let offer = Fixtures.offer()
        XCTAssertEqual(try Offer(bytes: offer.encoded), offer)
        let request = QuoteRequest(requestID: "r", offerID: "o", amountSat: 5)
        XCTAssertEqual(try QuoteRequest(bytes: request.encoded), request)
        XCTAssertOffersError(.unexpectedMessageType(expected: "Quote")) { try Quote(bytes: request.encoded) }
    }

    func testEveryRejectCodeRoundTrips() throws {
        XCTAssertEqual(RejectCode.allCases.map(\.rawValue), [
            "quote_expired", "unknown_quote", "amount_out_of_range", "insufficient_liquidity", "rate_limited",
            "unsupported_version", "invalid_request", "not_found", "pending", "internal",
        ])
        for code in RejectCode.allCases {
            let reject = Reject(requestID: "r-\(code)", code: code, reason: "because \(code)")
            let text = String(decoding: reject.encoded, as: UTF8.self)
            XCTAssertEqual(text, #"{"code":"\#(code.rawValue)","reason":"because \#(code.rawValue)","request_id":"r-\#(code.rawValue)","type":"Reject"}"#)
            XCTAssertEqual(try SwapMessage(bytes: reject.encoded), .reject(reject))
        }
        XCTAssertOffersError(.valueOutOfRange(field: "code")) {
            try Reject(bytes: Array(#"{"type":"Reject","request_id":"r","code":"teapot","reason":"x"}"#.utf8))
        }
    }

    func testErrorsMapToTheirRejectCodes() {
        let expected: [(OffersError, RejectCode)] = [
            (.missingField("x"), .invalidRequest), (.quoteExpired, .quoteExpired), (.unknownQuote, .unknownQuote),
            (.quoteAlreadyUsed, .unknownQuote), (.quoteNotForThisClient, .unknownQuote),
            (.amountOutOfRange(amount: 1, minimum: 2, maximum: 3), .amountOutOfRange),
            (.insufficientLiquidity(available: 1, needed: 2), .insufficientLiquidity),
            (.tooManyQuotes(limit: 1), .rateLimited), (.riskLimit("x"), .rateLimited),
            (.unsupportedVersion(2), .unsupportedVersion), (.unknownOffer, .notFound), (.swapNotFound, .notFound),
            (.rejected(.pending, reason: "wait"), .pending), (.transport("x"), .internal),
        ]
        for (error, code) in expected {
            XCTAssertEqual(error.rejectCode, code, "\(error)")
            let reject = Reject(requestID: "r", error: error)
            XCTAssertEqual(reject.code, code)
            XCTAssertEqual(reject.reason, error.description)
        }
    }

    func testUnknownFieldsAreIgnored() throws {
        let offer = Fixtures.offer()
        var json = Fixtures.setting("future_field", to: .object(["nested": .array([.integer(1)])]), in: offer.json)
        json = Fixtures.setting("another", to: .string("x"), in: json)
        XCTAssertEqual(try Offer(json: json), offer)
        let request = try Fixtures.json(#"{"type":"OfferRequest","request_id":"a","protocol_version":1,"extra":true}"#)
        XCTAssertEqual(try OfferRequest(json: request), OfferRequest(requestID: "a"))
    }

    func testUnknownMessageTypeIsInvalidRequest() throws {
        let bytes = Array(#"{"type":"Teapot","request_id":"r"}"#.utf8)
        XCTAssertOffersError(.unknownMessageType) { try SwapMessage(bytes: bytes) }
        XCTAssertEqual(rejectCode { try SwapMessage(bytes: bytes) }, .invalidRequest)
    }
}
