import Bitcoin
import HTLC
import Offers
@testable import PeerNode
import TestSupport
import XCTest

/// A quote that expires before the client commits: the provider engine rejects the
/// SwapRequest with `quote_expired`, and nothing is paid or locked.
final class EndToEndQuoteExpiryTests: XCTestCase {
    func testAnExpiredQuoteIsRejectedAndNothingMoves() async throws {
        let amount: Int64 = 100_000
        try await EndToEndNetwork.run(directory: try StoreFixture.directory(for: self)) { network in
            let (destination, decision, before) = try await network.routeToPayee(amountSat: amount)
            // Quotes live 300 s; the SwapRequest reaches the provider 301 s after its quote.
            network.provider.delaySwapRequests(bySeconds: 301)
            let engine = network.client.engine
            do {
                _ = try await within(seconds: 30) {
                    try await engine.pay(destination: destination, amountSat: amount, route: decision)
                }
                XCTFail("an expired quote is not honoured")
            } catch ClientEngineError.rejected(let code, _) {
                XCTAssertEqual(code, .quoteExpired)
            }
            let clientSwaps = try await network.client.disk.allSwaps(limit: 10)
            XCTAssertEqual(clientSwaps.count, 1)
            let state = try await network.client.storedState(try XCTUnwrap(clientSwaps.first).id)
            XCTAssertEqual(state?.phase, .failed)
            XCTAssertEqual(state?.outcome?.funds, .neverSent)
            let providerSwaps = try await network.provider.disk.allSwaps(limit: 10)
            XCTAssertEqual(providerSwaps.count, 0, "no swap, no invoice, no lock")
            let after = try await network.balances()
            XCTAssertEqual(after.lightning.nodes, before.lightning.nodes, "nothing paid")
            XCTAssertEqual(after.providerChainSat, before.providerChainSat, "nothing locked")
            XCTAssertTrue(network.hub.chain.mempoolEntries().isEmpty)
        }
    }
}
