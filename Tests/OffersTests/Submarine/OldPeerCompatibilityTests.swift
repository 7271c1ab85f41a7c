import Bitcoin
import HTLC
@testable import Offers
import Transport
import XCTest

/// Older peers keep working: the new replies decode (and verify) with the decoders they
/// run, and they read them as before.
final class OldPeerCompatibilityTests: XCTestCase {
    /// A two-way offer: an older client decodes it, the signature verifies over what it
    /// received (the new fields included), and it sees the reverse terms it always read.
    func testAnOlderClientReadsATwoWayOfferAndItsSignature() throws {
        let builder = OfferBuilder(terms: ProviderTerms(network: .regtest, submarine: try SubmarineTerms()),
                                   provider: Fixtures.provider.pubky)
        let offer = try builder.offer(requestID: "r", offerID: "o", liquiditySat: 2_000_000, rate: Fixtures.rate(2),
                                      nowUnix: Fixtures.now, lightningOutboundSat: 800_000)
        XCTAssertEqual(offer.directions, ["ln_to_onchain", "onchain_to_ln"])
        let bytes = Signed(signing: offer, with: Fixtures.provider).encoded
        let old = try Signed<Legacy.Offer>(bytes: bytes)
        XCTAssertNoThrow(try old.verify(by: Fixtures.provider.pubky))
        XCTAssertTrue(old.body.runsReverse)
        let reverse = try XCTUnwrap(offer.terms(for: .lightningToOnchain))
        XCTAssertEqual(old.body.minAmountSat, reverse.minAmountSat)
        XCTAssertEqual(old.body.maxAmountSat, reverse.maxAmountSat)
        XCTAssertEqual(old.body.baseFeeSat, reverse.baseFeeSat)
        XCTAssertEqual(old.body.feePPM, reverse.feePPM)
        XCTAssertEqual(old.body.onchainFeeSat, reverse.onchainFeeSat)
        XCTAssertEqual(old.body.requiredConfirmations, reverse.requiredConfirmations)
    }

    /// A provider running only `onchain_to_ln`: an older client decodes the offer and skips
    /// it by its `directions`, as it skips any provider without reverse swaps.
    func testAnOlderClientSkipsASubmarineOnlyOffer() throws {
        let builder = OfferBuilder(terms: ProviderTerms(network: .regtest, submarine: try SubmarineTerms()),
                                   provider: Fixtures.provider.pubky)
        let offer = try builder.offer(requestID: "r", offerID: "o", liquiditySat: 0, rate: Fixtures.rate(2),
                                      nowUnix: Fixtures.now, lightningOutboundSat: 800_000)
        XCTAssertEqual(offer.directions, ["onchain_to_ln"])
        XCTAssertNil(offer.terms(for: .lightningToOnchain))
        let old = try Signed<Legacy.Offer>(bytes: Signed(signing: offer, with: Fixtures.provider).encoded)
        XCTAssertTrue(old.isSigned(by: Fixtures.provider.pubky))
        XCTAssertFalse(old.body.runsReverse)
    }

    /// A provider that runs only reverse swaps sends the offer it always sent: no new field.
    func testAReverseOnlyOfferHasNoNewField() throws {
        let builder = OfferBuilder(terms: ProviderTerms(network: .regtest), provider: Fixtures.provider.pubky)
        let offer = try builder.offer(requestID: "r", offerID: "o", liquiditySat: 2_000_000, rate: Fixtures.rate(2),
                                      nowUnix: Fixtures.now, lightningOutboundSat: 800_000)
        guard case .object(let members) = offer.json else { return XCTFail("not an object") }
        XCTAssertNil(members["direction_terms"])
        XCTAssertEqual(offer.directions, ["ln_to_onchain"])
    }

    /// The QuoteRequest we send still carries `direction`, which older providers require.
    func testQuoteRequestsStillCarryTheDirectionOlderProvidersRequire() throws {
        let request = QuoteRequest(requestID: "r", offerID: "o", amountSat: 50_000)
        let old = try Legacy.QuoteRequest(bytes: request.encoded)
        XCTAssertEqual(old.direction, "ln_to_onchain")
        XCTAssertEqual(old.amountSat, 50_000)
    }

    /// And an older client's QuoteRequest without `direction` is a reverse one.
    func testAQuoteRequestWithoutDirectionIsReverse() throws {
        let text = #"{"type":"QuoteRequest","request_id":"r","offer_id":"o","amount_sat":50000}"#
        let request = try QuoteRequest(bytes: Array(text.utf8))
        XCTAssertEqual(request.swapDirection, .lightningToOnchain)
        XCTAssertNil(request.paymentHash)
    }

    /// Endpoints with a Lightning entry: an older payer decodes the whole reply (the entry
    /// has `address` and `network`) and still finds the on-chain address.
    func testAnOlderPayerReadsEndpointsWithALightningEntry() throws {
        let reply = Endpoints(requestID: "r", endpoints: [
            Endpoint.lightning(pubky: Fixtures.provider.pubky, network: "regtest"),
            Endpoint(address: "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", network: "regtest"),
        ])
        let old = try Legacy.Endpoints(bytes: reply.encoded)
        XCTAssertEqual(old.entries.count, 2)
        XCTAssertEqual(old.onchainAddress(network: "regtest"), "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080")
        // An entry lacking address (the shape the issue warns about) fails the whole reply.
        let bare = #"{"type":"Endpoints","request_id":"r","endpoints":[{"type":"lightning","network":"regtest"},"#
            + #"{"type":"onchain","address":"bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080","network":"regtest"}]}"#
        XCTAssertThrowsError(try Legacy.Endpoints(bytes: Array(bare.utf8)))
        // Ours reads the Lightning entry back as the contact's pubky.
        let decoded = try Endpoints(bytes: reply.encoded)
        XCTAssertEqual(decoded.endpoints[0].lightningPubky, Fixtures.provider.pubky)
        XCTAssertNil(decoded.endpoints[1].lightningPubky)
    }

    /// An older provider that gets a submarine SwapRequest refuses it (no payment_hash, no
    /// claim key) rather than reading it as a reverse swap.
    func testAnOlderProviderRefusesASubmarineSwapRequest() {
        XCTAssertEqual(rejectCode { try Legacy.SwapRequest(bytes: Fixtures.submarineRequest().encoded) }, .invalidRequest)
    }

    /// The reverse messages we send are byte for byte what they were (the pinned quote of
    /// CanonicalJSONTests stays; the reverse request and accept carry no `direction`).
    func testReverseRequestsAndAcceptsCarryNoDirection() {
        for json in [Fixtures.swapRequest().json, Fixtures.accept().json] {
            guard case .object(let members) = json else { return XCTFail("not an object") }
            XCTAssertNil(members["direction"])
        }
    }
}
