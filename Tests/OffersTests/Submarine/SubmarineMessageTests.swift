import Bitcoin
import HTLC
@testable import Offers
import Transport
import XCTest

/// The `onchain_to_ln` messages: round trips, fixed bytes, and malformed input refused
/// whole with a typed error.
final class SubmarineMessageTests: XCTestCase {
    // MARK: Offer.direction_terms

    func testATwoWayOfferListsEveryDirectionsTermsUnderOneSignature() throws {
        let offer = Fixtures.twoWayOffer()
        let signed = Signed(signing: offer, with: Fixtures.provider)
        let decoded = try Signed<Offer>(bytes: signed.encoded)
        XCTAssertNoThrow(try decoded.verify(by: Fixtures.provider.pubky))
        XCTAssertEqual(decoded.body, offer)
        XCTAssertEqual(decoded.body.terms(for: .onchainToLightning), Fixtures.submarineTerms())
        XCTAssertTrue(decoded.body.supports(.onchainToLightning))
        // Changing the submarine terms breaks the signature: they are signed like the rest.
        var tampered = Fixtures.twoWayOffer(submarine: Fixtures.submarineTerms(max: 500_001))
        tampered.requestID = offer.requestID
        let moved = try Signed<Offer>(json: Fixtures.setting("direction_terms", to: tampered.json.objectValue!["direction_terms"],
                                                             in: signed.json))
        XCTAssertOffersError(.invalidSignature) { try moved.verify(by: Fixtures.provider.pubky) }
    }

    func testTheDirectionTermsEntryIsPinned() {
        let text = String(decoding: Fixtures.submarineTerms().json.canonicalBytes, as: UTF8.self)
        XCTAssertEqual(text, #"{"base_fee_sat":400,"direction":"onchain_to_ln","fee_ppm":1500,"htlc_timeout_blocks":144,"#
                       + #""max_amount_sat":500000,"min_amount_sat":10000,"onchain_fee_sat":380,"required_confirmations":1}"#)
    }

    /// An older provider's offer (no `direction_terms`) runs reverse swaps only.
    func testAnOfferWithoutDirectionTermsRunsReverseOnly() throws {
        var offer = Fixtures.offer()
        offer.directions = ["ln_to_onchain", "onchain_to_ln"]
        XCTAssertNotNil(offer.terms(for: .lightningToOnchain))
        XCTAssertNil(offer.terms(for: .onchainToLightning), "a direction without terms is not run")
    }

    func testMalformedDirectionTermsRefuseTheWholeOffer() throws {
        let good = Fixtures.twoWayOffer().json
        func withTerms(_ entries: [JSONValue], directions: [String] = ["ln_to_onchain", "onchain_to_ln"]) -> JSONValue {
            let value = Fixtures.setting("direction_terms", to: .array(entries), in: good)
            return Fixtures.setting("directions", to: .array(directions.map(JSONValue.string)), in: value)
        }
        let reverse = Fixtures.offer().terms(for: .lightningToOnchain)!.json
        let submarine = Fixtures.submarineTerms().json
        let cases: [(String, JSONValue, OffersError)] = [
            ("a direction twice", withTerms([reverse, submarine, submarine]), .valueOutOfRange(field: "direction_terms")),
            ("a direction not in directions", withTerms([reverse, submarine], directions: ["ln_to_onchain"]),
             .valueOutOfRange(field: "direction_terms")),
            ("reverse terms other than the top-level ones",
             withTerms([Fixtures.setting("fee_ppm", to: .integer(1), in: reverse), submarine]),
             .valueOutOfRange(field: "direction_terms")),
            ("onchain_to_ln at 0 confirmations",
             withTerms([reverse, Fixtures.setting("required_confirmations", to: .integer(0), in: submarine)]),
             .valueOutOfRange(field: "required_confirmations")),
            ("an entry without direction", withTerms([reverse, Fixtures.setting("direction", to: nil, in: submarine)]),
             .missingField("direction")),
            ("an entry with a fractional amount",
             withTerms([reverse, Fixtures.setting("max_amount_sat", to: .number("1.5"), in: submarine)]),
             .wrongType(field: "max_amount_sat", expected: "a plain integer")),
            ("an entry that is not an object", withTerms([reverse, .string("onchain_to_ln")]),
             .wrongType(field: "direction_terms", expected: "an array of objects")),
            ("a listed direction without its entry", withTerms([submarine]), .valueOutOfRange(field: "direction_terms")),
            ("more than 8 entries", withTerms(Array(repeating: submarine, count: 9)), .valueOutOfRange(field: "direction_terms")),
        ]
        for (what, json, expected) in cases {
            XCTAssertOffersError(expected) { try Offer(json: json) }
            XCTAssertEqual(rejectCode { try SwapMessage(json: Fixtures.setting("signature", to: .string(String(repeating: "00", count: 64)), in: json)) },
                           .invalidRequest, what)
        }
    }

    /// A direction this build does not know is a later one: skipped, the offer still read.
    func testAnUnknownDirectionsTermsAreSkipped() throws {
        let later = Fixtures.setting("direction", to: .string("ln_to_ln"), in: Fixtures.submarineTerms().json)
        var json = Fixtures.twoWayOffer().json
        let entries = json.objectValue!["direction_terms"]!.arrayValue! + [later]
        json = Fixtures.setting("direction_terms", to: .array(entries), in: json)
        json = Fixtures.setting("directions", to: .array(["ln_to_onchain", "onchain_to_ln", "ln_to_ln"].map(JSONValue.string)), in: json)
        let offer = try Offer(json: json)
        XCTAssertEqual(offer.directionTerms.map(\.direction), [.lightningToOnchain, .onchainToLightning])
    }

    // MARK: QuoteRequest / Quote

    func testASubmarineQuoteRequestCarriesTheInvoiceHash() throws {
        let request = QuoteRequest(requestID: "r", offerID: "o", direction: .onchainToLightning, amountSat: 20_000,
                                   paymentHash: Fixtures.paymentHash)
        XCTAssertEqual(String(decoding: request.encoded, as: UTF8.self),
                       #"{"amount_sat":20000,"direction":"onchain_to_ln","offer_id":"o","payment_hash":""#
                       + Fixtures.paymentHash.hex + #"","request_id":"r","type":"QuoteRequest"}"#)
        XCTAssertEqual(try QuoteRequest(bytes: request.encoded), request)
        // A hash on a reverse request, or of the wrong size, is refused.
        let reverse = Fixtures.setting("direction", to: .string("ln_to_onchain"), in: request.json)
        XCTAssertOffersError(.valueOutOfRange(field: "payment_hash")) { try QuoteRequest(json: reverse) }
        let short = Fixtures.setting("payment_hash", to: .string("00"), in: request.json)
        XCTAssertOffersError(.valueOutOfRange(field: "payment_hash")) { try QuoteRequest(json: short) }
    }

    /// For onchain_to_ln the quote's `total_sat` is what the client locks: amount + service
    /// fee + the provider's claim fee.
    func testASubmarineQuoteAddsUpToTheLock() throws {
        let quote = Fixtures.submarineQuote()
        XCTAssertEqual(quote.feeSat, 550 + 380)
        XCTAssertEqual(quote.totalSat, 100_000 + 930)
        let text = String(decoding: quote.encoded, as: UTF8.self)
        XCTAssertEqual(text, #"{"amount_sat":100000,"direction":"onchain_to_ln","fee_rate_sat_vb":2,"fee_sat":930,"#
                       + #""htlc_timeout_blocks":144,"offer_id":"offer-1","onchain_fee_sat":380,"payment_hash":""#
                       + Fixtures.paymentHash.hex + #"","quote_id":"quote-2","request_id":"req-2","required_confirmations":1,"#
                       + #""service_fee_sat":550,"total_sat":100930,"type":"Quote","valid_until_unix":1700000300}"#)
        XCTAssertEqual(try Quote(bytes: quote.encoded), quote)
    }

    // MARK: SwapRequest / SwapAccept

    func testASubmarineSwapRequestIsPinnedAndReadBack() throws {
        let request = Fixtures.submarineRequest()
        XCTAssertEqual(String(decoding: request.encoded, as: UTF8.self),
                       #"{"direction":"onchain_to_ln","invoice":"lnbcrt1000u1fake","quote_id":"quote-2","refund_pubkey":""#
                       + Fixtures.clientRefundKey.publicKey.compressed.hex
                       + #"","request_id":"req-7","script_type":"taproot_boltz","type":"SwapRequest"}"#)
        guard case .submarineSwapRequest(let decoded) = try SwapMessage(bytes: request.encoded) else {
            return XCTFail("not read as a submarine request")
        }
        XCTAssertEqual(decoded, request)
        // Without script_type: the default contract.
        let bare = Fixtures.setting("script_type", to: nil, in: request.json)
        XCTAssertEqual(try SubmarineSwapRequest(json: bare).scriptType, .taprootBoltz)
    }

    func testMalformedSubmarineSwapRequestsAreRefused() {
        let good = Fixtures.submarineRequest().json
        let cases: [(String, JSONValue, OffersError)] = [
            ("no invoice", Fixtures.setting("invoice", to: nil, in: good), .missingField("invoice")),
            ("an empty invoice", Fixtures.setting("invoice", to: .string(""), in: good), .valueOutOfRange(field: "invoice")),
            ("an oversized invoice", Fixtures.setting("invoice", to: .string(String(repeating: "q", count: 8_193)), in: good),
             .valueOutOfRange(field: "invoice")),
            ("no refund key", Fixtures.setting("refund_pubkey", to: nil, in: good), .missingField("refund_pubkey")),
            ("a 32-byte refund key", Fixtures.setting("refund_pubkey", to: .string(String(repeating: "02", count: 32)), in: good),
             .valueOutOfRange(field: "refund_pubkey")),
            ("a refund key off the curve",
             Fixtures.setting("refund_pubkey", to: .string("02" + String(repeating: "ff", count: 32)), in: good),
             .wrongType(field: "refund_pubkey", expected: "a compressed secp256k1 public key")),
            ("an unknown script type", Fixtures.setting("script_type", to: .string("p2sh"), in: good),
             .valueOutOfRange(field: "script_type")),
            ("another direction", Fixtures.setting("direction", to: .string("ln_to_onchain"), in: good), .unsupportedDirection),
            ("no direction", Fixtures.setting("direction", to: nil, in: good), .missingField("direction")),
        ]
        for (what, json, expected) in cases {
            XCTAssertOffersError(expected) { try SubmarineSwapRequest(json: json) }
            XCTAssertEqual(rejectCode { try SwapMessage(json: json) }, .invalidRequest, what)
        }
    }

    /// The reverse decoders refuse a message of the other direction instead of reading half of it.
    func testTheReverseDecodersRefuseTheSubmarineDirection() {
        let request = Fixtures.setting("direction", to: .string("onchain_to_ln"), in: Fixtures.swapRequest().json)
        XCTAssertOffersError(.unsupportedDirection) { try SwapRequest(json: request) }
        let accept = Fixtures.setting("direction", to: .string("onchain_to_ln"), in: Fixtures.accept().json)
        XCTAssertOffersError(.unsupportedDirection) { try SwapAccept(json: accept) }
        let unknown = Fixtures.setting("direction", to: .string("sideways"), in: Fixtures.swapRequest().json)
        XCTAssertEqual(rejectCode { try SwapMessage(json: unknown) }, .invalidRequest)
        // ... and an explicit ln_to_onchain is the reverse request it always was.
        let explicit = Fixtures.setting("direction", to: .string("ln_to_onchain"), in: Fixtures.swapRequest().json)
        XCTAssertEqual(try SwapRequest(json: explicit), Fixtures.swapRequest())
    }

    /// The accept carries the submarine contract: the provider's claim key, the client's
    /// refund key, the hash, the timeout, the scripts and the exact lock amount, all signed.
    func testASubmarineAcceptCarriesTheSwappedContractSigned() throws {
        for type in ContractType.allCases {
            let accept = Fixtures.submarineAccept(type)
            let contract = Fixtures.submarineContract(type)
            XCTAssertEqual(accept.claimPublicKey, Fixtures.providerClaimKey.publicKey)
            XCTAssertEqual(accept.refundPublicKey, Fixtures.clientRefundKey.publicKey)
            XCTAssertEqual(accept.totalSat, Fixtures.submarineQuote().totalSat, "the lock is the quote's total")
            XCTAssertEqual(accept.amountSat, 100_000, "the invoice amount")
            XCTAssertEqual(accept.htlcAddress, contract.encodedAddress)
            XCTAssertEqual(accept.scripts, SwapAccept.Scripts(contract: contract))
            let signed = Signed(signing: accept, with: Fixtures.provider)
            guard case .submarineSwapAccept(let decoded) = try SwapMessage(bytes: signed.encoded) else {
                return XCTFail("not read as a submarine accept")
            }
            XCTAssertEqual(decoded.body, accept)
            XCTAssertNoThrow(try decoded.verify(by: Fixtures.provider.pubky))
            XCTAssertOffersError(.invalidSignature) { try decoded.verify(by: Fixtures.stranger.pubky) }
            for key in ["total_sat", "timeout_height", "claim_pubkey", "htlc_address"] {
                let changed: JSONValue = key == "claim_pubkey" ? .string(Fixtures.key(0x77).publicKey.compressed.hex)
                    : key == "htlc_address" ? .string("bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080") : .integer(1)
                let tampered = try Signed<SubmarineSwapAccept>(json: Fixtures.setting(key, to: changed, in: signed.json))
                XCTAssertOffersError(.invalidSignature, { try tampered.verify(by: Fixtures.provider.pubky) })
            }
        }
    }

    /// The accept's canonical bytes and its signature, pinned: fixed keys and hash
    /// (provider claim key 0x55…, client refund key 0x66…, SHA256(0x07 × 32), timeout
    /// 1,144) and ed25519's deterministic signature by the fixture provider.
    func testTheSubmarineAcceptIsPinned() throws {
        let accept = Fixtures.submarineAccept()
        let text = String(decoding: accept.encoded, as: UTF8.self)
        XCTAssertEqual(text, SubmarineAcceptVector.canonical)
        XCTAssertEqual(Signed(signing: accept, with: Fixtures.provider).signature.hex, SubmarineAcceptVector.signature)
        let received = try Signed<SubmarineSwapAccept>(bytes: Array(text.utf8.dropLast())
                                                       + Array(#","signature":"\#(SubmarineAcceptVector.signature)"}"#.utf8))
        XCTAssertNoThrow(try received.verify(by: Fixtures.provider.pubky))
        XCTAssertEqual(received.body, accept)
    }

    func testMalformedSubmarineAcceptsAreRefused() {
        let good = Signed(signing: Fixtures.submarineAccept(), with: Fixtures.provider).json
        let cases: [(JSONValue, OffersError)] = [
            (Fixtures.setting("payment_hash", to: .string("00"), in: good), .valueOutOfRange(field: "payment_hash")),
            (Fixtures.setting("total_sat", to: .integer(-1), in: good), .valueOutOfRange(field: "total_sat")),
            (Fixtures.setting("timeout_height", to: .integer(1 << 32), in: good), .valueOutOfRange(field: "timeout_height")),
            (Fixtures.setting("swap_tree", to: nil, in: good), .missingField("swap_tree")),
            (Fixtures.setting("claim_pubkey", to: nil, in: good), .missingField("claim_pubkey")),
            (Fixtures.setting("direction", to: .string("sideways"), in: good), .unsupportedDirection),
        ]
        for (json, expected) in cases {
            XCTAssertOffersError(expected) { try Signed<SubmarineSwapAccept>(json: json) }
        }
    }
}

/// Pinned from the first run of the encoder and signer.
enum SubmarineAcceptVector {
    static let canonical = #"{"amount_sat":100000,"claim_pubkey":"029ac20335eb38768d2052be1dbbc3c8f6178407458e51e6b4ad22f1d91758895b","direction":"onchain_to_ln","htlc_address":"bcrt1pelmx6y379gungyzz3e0gl64rret3ytyquv6rw2qvv0952wsu6aaq6pk7sl","payment_hash":"4bb06f8e4e3a7715d201d573d0aa423762e55dabd61a2c02278fa56cc6d294e0","quote_id":"quote-2","refund_pubkey":"035ab4689e400a4a160cf01cd44730845a54768df8547dcdf073d964f109f18c30","request_id":"req-7","script_type":"taproot_boltz","swap_id":"swap-2","swap_tree":{"claim_leaf":"82012088a914b566a3eecce809896361988823cd2f423fe800e788209ac20335eb38768d2052be1dbbc3c8f6178407458e51e6b4ad22f1d91758895bac","refund_leaf":"205ab4689e400a4a160cf01cd44730845a54768df8547dcdf073d964f109f18c30ad027804b1"},"timeout_height":1144,"total_sat":100930,"type":"SwapAccept"}"#
    static let signature = "f549d97ea93bdf63c8e8f49e831b91f5b537814ee37c6315f3ed5d22eb5200c7daffc88689610f313ada3768c84abb30ad64cc7e9b77361d74716bedcc76320d"
}
