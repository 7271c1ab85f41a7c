import Bitcoin
@testable import Offers
import Transport
import XCTest

/// The cooperative-claim messages of swap/1: round trip, pinned canonical bytes, unknown
/// fields ignored, and every malformed field refused with an error that names it.
final class CoopClaimMessageTests: XCTestCase {
    private let request = Fixtures.coopClaimRequest()
    private let signed = Fixtures.coopClaimSigned()

    func testBothMessagesRoundTripThroughSwapMessage() throws {
        for message in [SwapMessage.coopClaimRequest(request), .coopClaimSigned(signed)] {
            let decoded = try SwapMessage(bytes: message.encoded)
            XCTAssertEqual(decoded, message)
            XCTAssertEqual(decoded.encoded, message.encoded)
            XCTAssertEqual(decoded.requestID, "r9")
        }
        XCTAssertEqual(try CoopClaimRequest(bytes: request.encoded), request)
        XCTAssertEqual(try CoopClaimSigned(bytes: signed.encoded), signed)
        XCTAssertOffersError(.unexpectedMessageType(expected: "CoopClaimSigned")) { try CoopClaimSigned(bytes: request.encoded) }
        XCTAssertEqual(OfferFeature.musig2, "musig2")
    }

    func testCanonicalBytesArePinned() {
        let nonce = Fixtures.publicNonce.bytes.hex
        let claim = "0200000001" + String(repeating: "ab", count: 32) + "0100000000fdffffff01"
            + "31860100000000002251" + "20" + Fixtures.key(0x44).xOnlyPublicKey.bytes.hex + "00000000"
        XCTAssertEqual(Fixtures.claimTransaction.serialized.hex, claim, "99,889 sat = 0x018631, little-endian")
        XCTAssertEqual(String(decoding: request.encoded, as: UTF8.self),
                       #"{"claim_tx":""# + claim + #"","preimage":""# + String(repeating: "07", count: 32)
                       + #"","pubnonce":""# + nonce + #"","request_id":"r9","swap_id":"swap-1","type":"CoopClaimRequest"}"#)
        XCTAssertEqual(String(decoding: signed.encoded, as: UTF8.self),
                       #"{"partial_signature":""# + String(repeating: "05", count: 32) + #"","pubnonce":""# + nonce
                       + #"","request_id":"r9","swap_id":"swap-1","type":"CoopClaimSigned"}"#)
        XCTAssertTrue(nonce.hasPrefix(Fixtures.key(0x61).publicKey.compressed.hex))
        XCTAssertEqual(nonce.count, 132)
    }

    func testUnknownFieldsAreIgnoredAndUppercaseHexIsRead() throws {
        let extra = Fixtures.setting("future_field", to: .array([.integer(1)]), in: request.json)
        XCTAssertEqual(try CoopClaimRequest(json: extra), request)
        let upper = Fixtures.setting("pubnonce", to: .string(Fixtures.publicNonce.bytes.hex.uppercased()), in: signed.json)
        XCTAssertEqual(try CoopClaimSigned(json: upper), signed)
    }

    func testMalformedRequestFieldsAreRefused() throws {
        let json = request.json
        let offCurve = "02" + String(repeating: "ff", count: 32)
        let lockOnly = Fixtures.claimTransaction.serialized
        let huge = Transaction(inputs: Fixtures.claimTransaction.inputs,
                               outputs: Array(repeating: Fixtures.claimTransaction.outputs[0], count: 120))
        XCTAssertGreaterThan(huge.serialized.count, CoopClaimRequest.maxClaimTransactionBytes)
        let cases: [(String, JSONValue, OffersError)] = [
            ("preimage", .string("zz"), .wrongType(field: "preimage", expected: "hex")),
            ("preimage", .string(String(repeating: "07", count: 31)), .valueOutOfRange(field: "preimage")),
            ("pubnonce", .string("xyz"), .wrongType(field: "pubnonce", expected: "hex")),
            ("pubnonce", .string(String(repeating: "02", count: 65)), .valueOutOfRange(field: "pubnonce")),
            ("pubnonce", .string(Fixtures.publicNonce.bytes.hex + "00"), .valueOutOfRange(field: "pubnonce")),
            ("pubnonce", .string(offCurve + offCurve),
             .wrongType(field: "pubnonce", expected: "a MuSig2 public nonce (two compressed secp256k1 points)")),
            ("pubnonce", .integer(1), .wrongType(field: "pubnonce", expected: "a string")),
            ("claim_tx", .string("0200zz"), .wrongType(field: "claim_tx", expected: "hex")),
            ("claim_tx", .string(""), .valueOutOfRange(field: "claim_tx")),
            ("claim_tx", .string(huge.serialized.hex), .valueOutOfRange(field: "claim_tx")),
            ("claim_tx", .string(String(repeating: "0", count: 2 * CoopClaimRequest.maxClaimTransactionBytes + 2)),
             .valueOutOfRange(field: "claim_tx")),
            ("claim_tx", .string((lockOnly + [0x00]).hex), .wrongType(field: "claim_tx", expected: "a raw Bitcoin transaction")),
            ("claim_tx", .string(Array(lockOnly.dropLast()).hex), .wrongType(field: "claim_tx", expected: "a raw Bitcoin transaction")),
            ("swap_id", .string(""), .valueOutOfRange(field: "swap_id")),
            ("request_id", .string(String(repeating: "r", count: 129)), .valueOutOfRange(field: "request_id")),
        ]
        for (key, value, expected) in cases {
            XCTAssertOffersError(expected) { try CoopClaimRequest(json: Fixtures.setting(key, to: value, in: json)) }
            XCTAssertEqual(rejectCode { try SwapMessage(json: Fixtures.setting(key, to: value, in: json)) }, .invalidRequest, key)
        }
        for key in ["request_id", "swap_id", "preimage", "pubnonce", "claim_tx"] {
            XCTAssertOffersError(.missingField(key)) { try CoopClaimRequest(json: Fixtures.setting(key, to: nil, in: json)) }
        }
        XCTAssertEqual(OffersError.wrongType(field: "claim_tx", expected: "a raw Bitcoin transaction").description,
                       #"field "claim_tx" must be a raw Bitcoin transaction"#)
    }

    func testMalformedSignedFieldsAreRefused() throws {
        let json = signed.json
        // n, the curve order: the smallest 32 bytes that are not a partial signature.
        let order = "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141"
        let cases: [(String, JSONValue, OffersError)] = [
            ("partial_signature", .string("zz"), .wrongType(field: "partial_signature", expected: "hex")),
            ("partial_signature", .string(String(repeating: "05", count: 33)), .valueOutOfRange(field: "partial_signature")),
            ("partial_signature", .string(String(repeating: "05", count: 31)), .valueOutOfRange(field: "partial_signature")),
            ("partial_signature", .string(order), .valueOutOfRange(field: "partial_signature")),
            ("partial_signature", .string(String(repeating: "ff", count: 32)), .valueOutOfRange(field: "partial_signature")),
            ("pubnonce", .string(String(repeating: "00", count: 66)),
             .wrongType(field: "pubnonce", expected: "a MuSig2 public nonce (two compressed secp256k1 points)")),
        ]
        for (key, value, expected) in cases {
            XCTAssertOffersError(expected) { try CoopClaimSigned(json: Fixtures.setting(key, to: value, in: json)) }
        }
        // n − 1 is the largest valid scalar.
        let largest = "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140"
        XCTAssertEqual(try CoopClaimSigned(json: Fixtures.setting("partial_signature", to: .string(largest), in: json))
            .partialSignature.bytes.hex, largest)
        for key in ["request_id", "swap_id", "pubnonce", "partial_signature"] {
            XCTAssertOffersError(.missingField(key)) { try CoopClaimSigned(json: Fixtures.setting(key, to: nil, in: json)) }
        }
    }
}
