import Bitcoin
@testable import Offers
import Transport
import XCTest

/// Missing or mistyped required fields are `invalid_request`; integers are read exactly.
final class StrictDecodingTests: XCTestCase {
    /// Fields a message may lack (defaulted or optional).
    private let optional: [String: Set<String>] = [
        "OfferRequest": ["network"],
        "Offer": ["direction_terms"],
        "QuoteRequest": ["direction", "payment_hash"],
        "Quote": ["payment_hash"],
        "SwapRequest": ["script_type", "features"],
        "SwapStatusSnapshot": ["lock_txid", "lock_vout"],
        "SwapStatusUpdate": ["lock_txid", "lock_vout"],
        "SwapListRequest": ["offset"],
    ]

    func testEveryMissingRequiredFieldIsInvalidRequest() throws {
        var checked = 0
        for message in Fixtures.everyMessage {
            guard case .object(let members) = message.json else { return XCTFail("not an object") }
            let type = members["type"]!.stringValue!
            for key in members.keys where key != "type" && !(optional[type]?.contains(key) ?? false) {
                let stripped = Fixtures.setting(key, to: nil, in: message.json)
                XCTAssertEqual(rejectCode { try SwapMessage(json: stripped) }, .invalidRequest, "\(type) without \(key)")
                let nulled = Fixtures.setting(key, to: .null, in: message.json)
                XCTAssertEqual(rejectCode { try SwapMessage(json: nulled) }, .invalidRequest, "\(type) with null \(key)")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 60)
        let offer = Fixtures.offer().json
        XCTAssertOffersError(.missingField("max_amount_sat")) {
            try Offer(json: Fixtures.setting("max_amount_sat", to: nil, in: offer))
        }
        XCTAssertOffersError(.missingField("signature")) { try Signed<Offer>(json: offer) }
    }

    func testWrongTypesAreInvalidRequest() throws {
        let offer = Fixtures.offer().json
        let cases: [(String, JSONValue, OffersError)] = [
            ("max_amount_sat", .string("1000"), .wrongType(field: "max_amount_sat", expected: "an integer")),
            ("offer_id", .integer(5), .wrongType(field: "offer_id", expected: "a string")),
            ("directions", .string("ln_to_onchain"), .wrongType(field: "directions", expected: "an array")),
            ("features", .array([.integer(1)]), .wrongType(field: "features", expected: "an array of strings")),
            ("provider_pkarr", .string("not-a-pubky"), .wrongType(field: "provider_pkarr", expected: "a pubky")),
            ("fee_ppm", .integer(1_000_001), .valueOutOfRange(field: "fee_ppm")),
            ("min_amount_sat", .integer(-1), .valueOutOfRange(field: "min_amount_sat")),
            ("request_id", .string(""), .valueOutOfRange(field: "request_id")),
        ]
        for (key, value, expected) in cases {
            XCTAssertOffersError(expected) { try Offer(json: Fixtures.setting(key, to: value, in: offer)) }
            XCTAssertEqual(expected.rejectCode, .invalidRequest)
        }
        XCTAssertOffersError(.notAnObject) { try SwapMessage(bytes: Array("[1,2]".utf8)) }
        XCTAssertEqual(rejectCode { try SwapMessage(bytes: Array("{".utf8)) }, .invalidRequest)
        let request = Fixtures.swapRequest().json
        XCTAssertOffersError(.valueOutOfRange(field: "payment_hash")) {
            try SwapRequest(json: Fixtures.setting("payment_hash", to: .string("abcd"), in: request))
        }
        XCTAssertOffersError(.wrongType(field: "payment_hash", expected: "hex")) {
            try SwapRequest(json: Fixtures.setting("payment_hash", to: .string("zz"), in: request))
        }
        XCTAssertOffersError(.valueOutOfRange(field: "script_type")) {
            try SwapRequest(json: Fixtures.setting("script_type", to: .string("p2pkh"), in: request))
        }
    }

    func testIntegersAreReadExactlyFromTheirText() throws {
        func amount(_ literal: String) throws -> Int64 {
            let text = #"{"type":"QuoteRequest","request_id":"r","offer_id":"o","direction":"ln_to_onchain","amount_sat":\#(literal)}"#
            return try QuoteRequest(bytes: Array(text.utf8)).amountSat
        }
        XCTAssertEqual(try amount("0"), 0)
        XCTAssertEqual(try amount("2100000000000000"), Amounts.maximumSat)
        XCTAssertOffersError(.valueOutOfRange(field: "amount_sat")) { try amount("2100000000000001") }
        XCTAssertOffersError(.valueOutOfRange(field: "amount_sat")) { try amount("-5") }
        for literal in ["1.0", "1e3", "1E3", "10.5", "-0", "99999999999999999999"] {
            XCTAssertEqual(rejectCode { try amount(literal) }, .invalidRequest, literal)
        }
        // Beyond a Double's 53 bits: still exact.
        XCTAssertEqual(JSONValue.number("9007199254740993").int64Value, 9_007_199_254_740_993)
        XCTAssertEqual(JSONValue.number("18446744073709551615").uint64Value, UInt64.max)
        XCTAssertNil(JSONValue.number("18446744073709551616").uint64Value)
        XCTAssertEqual(JSONValue.number("-9223372036854775808").int64Value, Int64.min)
        XCTAssertNil(JSONValue.number("9223372036854775808").int64Value)
        XCTAssertNil(JSONValue.number("-1").uint64Value)
        XCTAssertNil(JSONValue.number("1.5").int64Value)
        XCTAssertNil(JSONValue.string("1").int64Value)
        XCTAssertEqual(JSONValue.integer(Int64(-42)), .number("-42"))
        let update = #"{"type":"SwapStatusUpdate","swap_id":"s","sequence":18446744073709551615,"status":"settled"}"#
        XCTAssertEqual(try SwapStatusUpdate(bytes: Array(update.utf8)).sequence, UInt64.max)
    }
}
