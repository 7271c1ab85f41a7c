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

    /// `peernode quote` then `pay --quote`: a firm quote fetched first (here for a P2WSH
    /// contract) and committed after the provider's lifetime is refused with
    /// `quote_expired`; nothing is paid, and the client's record ends `failed`.
    func testAFirmQuoteCommittedAfterItsLifetimeIsRejected() async throws {
        let amount: Int64 = 100_000
        try await EndToEndNetwork.run(directory: try StoreFixture.directory(for: self)) { network in
            let (destination, decision, before) = try await network.routeToPayee(amountSat: amount)
            let choice = try XCTUnwrap(decision.choice)
            let engine = network.client.engine
            let type = try DestinationType(address: destination)
            let firm = try await engine.firmQuote(destinationType: type, amountSat: amount, via: choice.provider,
                                                  contractType: .p2wsh)
            XCTAssertEqual(firm.contractType, .p2wsh)
            XCTAssertEqual(firm.quote.amountSat, amount + firm.claimFeeSat)
            XCTAssertEqual(firm.claimFeeSat, ContractSizes.claimFee(.p2wsh, destination: type, rate: firm.claimFeeRate))
            let quotedSwaps = try await network.client.disk.allSwaps(limit: 10)
            XCTAssertEqual(quotedSwaps.count, 0, "a quote alone records no swap")

            // Another kind of address than the one it was priced for is refused before anything is stored.
            let other = await network.client.savings.newAddress().address
            if try DestinationType(address: other) != type {
                do {
                    _ = try await engine.pay(destination: other, firm: firm)
                    XCTFail("a quote priced for another claim size is not committed")
                } catch ClientEngineError.unsupportedDestination(let why) {
                    XCTAssertTrue(why.contains(firm.quoteID), why)
                }
            }

            network.provider.delaySwapRequests(bySeconds: 301)
            do {
                _ = try await within(seconds: 30) { try await engine.pay(destination: destination, firm: firm) }
                XCTFail("an expired quote is not honoured")
            } catch ClientEngineError.rejected(let code, _) {
                XCTAssertEqual(code, .quoteExpired)
            }
            let clientSwaps = try await network.client.disk.allSwaps(limit: 10)
            XCTAssertEqual(clientSwaps.map(\.id), [firm.quoteID])
            let state = try await network.client.storedState(firm.quoteID)
            XCTAssertEqual(state?.phase, .failed)
            XCTAssertEqual(state?.outcome?.funds, .neverSent)
            let providerSwaps = try await network.provider.disk.allSwaps(limit: 10)
            XCTAssertEqual(providerSwaps.count, 0, "no swap, no invoice, no lock")
            let after = try await network.balances()
            XCTAssertEqual(after.lightning.nodes, before.lightning.nodes, "nothing paid")
            XCTAssertEqual(after.providerChainSat, before.providerChainSat, "nothing locked")
        }
    }
}
