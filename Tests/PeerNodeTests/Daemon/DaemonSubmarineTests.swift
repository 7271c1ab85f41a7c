import Bitcoin
import Foundation
import Offers
import PeerNode
import Transport
import XCTest

/// The daemon's onchain_to_ln switch (issue 16): with `submarine=1` its offers list the
/// direction's terms, an onchain_to_ln QuoteRequest gets a quote, and its SwapRequest goes
/// to the submarine engine; with it off (the default) the direction is not offered.
final class DaemonSubmarineTests: XCTestCase {
    func testSubmarineOnQuotesOnchainToLightningAndOffAnswersUnsupportedDirection() async throws {
        let fixture = try await DaemonFixture()
        let peer = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 0xC3, count: 32)))
        for enabled in [true, false] {
            let extra = enabled ? ["provider=1", "submarine=1", "submarine_timeout_blocks=96", "submarine_route_cltv_blocks=40"]
                : ["provider=1"]
            let (datadir, pubky) = try await fixture.dataDirectory(enabled ? "on" : "off", config: fixture.hubConfig + extra)
            let node = try await fixture.start(datadir, engines: NodeEngines.factory(settings: .init(followerPollMilliseconds: 100)))
            let fresh = try await node.result("wallet.address")
            let address = try XCTUnwrap(fresh["address"]?.stringValue)
            _ = try await fixture.rpc.call("hub_fund", [.string(address), .number("0.5")])
            _ = try await node.result("wallet.balance")

            let connection = try await PeerDialer(identity: peer, loop: fixture.loop)
                .dial(pubky, host: "127.0.0.1", port: node.ready.listenPort)
            let offerReply = try await connection.request(OfferRequest(requestID: "o1", network: "regtest").encoded, id: "o1")
            guard case .offer(let offer) = try SwapMessage(bytes: offerReply) else {
                return XCTFail("not an Offer: \(String(decoding: offerReply, as: UTF8.self))")
            }
            let terms = offer.body.terms(for: .onchainToLightning)
            let quoteRequest = QuoteRequest(requestID: "q1", offerID: offer.body.offerID, direction: .onchainToLightning,
                                            amountSat: 20_000)
            let quoteReply = try SwapMessage(bytes: try await connection.request(quoteRequest.encoded, id: "q1"))
            let swapRequest = SubmarineSwapRequest(requestID: "s1", quoteID: "q", invoice: "lnbcrt1notaninvoice",
                                                   refundPublicKey: try PrivateKey([UInt8](repeating: 0x66, count: 32)).publicKey)
            let swapReply = try SwapMessage(bytes: try await connection.request(swapRequest.encoded, id: "s1"))
            if enabled {
                // Bounded by the node's LND (500,000 sat) with its routing reserve on top.
                let listed = try XCTUnwrap(terms)
                XCTAssertEqual(listed.requiredConfirmations, 1)
                XCTAssertEqual(listed.htlcTimeoutBlocks, 96)
                XCTAssertLessThan(listed.maxAmountSat, 500_000)
                guard case .quote(let quote) = quoteReply else { return XCTFail("not a Quote: \(quoteReply)") }
                XCTAssertEqual(quote.body.swapDirection, .onchainToLightning)
                XCTAssertEqual(quote.body.amountSat, 20_000)
                XCTAssertEqual(quote.body.totalSat, 20_000 + quote.body.feeSat)
                // The submarine engine reads the invoice (the handlers alone would say the
                // direction is not offered).
                guard case .reject(let reject) = swapReply else { return XCTFail("not a Reject: \(swapReply)") }
                XCTAssertTrue(reject.reason.hasPrefix("invoice_unreadable"), reject.reason)
            } else {
                XCTAssertNil(terms)
                XCTAssertEqual(quoteReply, .reject(Reject(requestID: "q1", error: .unsupportedDirection)))
                XCTAssertEqual(swapReply, .reject(Reject(requestID: "s1", error: .unsupportedDirection)))
            }
            await connection.close()
            try await node.stop()
        }
        await fixture.shutDown()
    }
}
