import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Regtest
import TestSupport
import Transport
import XCTest

/// Each node killed between an intent and its act, then started again on the same
/// database file: the swap completes, with exactly one lock and one claim on chain.
final class EndToEndRestartTests: XCTestCase {
    private let amount: Int64 = 100_000

    /// The client dies with its claim intent on disk, before broadcasting; its restart
    /// broadcasts the stored claim, and the provider settles from it.
    func testTheClientKilledAfterItsClaimIntentCompletesOnRestart() async throws {
        try await EndToEndNetwork.run(
            directory: try StoreFixture.directory(for: self),
            clientStore: { DyingSwapStore($0, diesAfter: ClientSwapPhase.claimBroadcast.rawValue, .reportingTheWrite) }) {
            try await clientRestart($0)
        }
    }

    /// The provider dies with its funding intent on disk, before broadcasting the lock; its
    /// restart publishes exactly the recorded lock, and the client claims it.
    func testTheProviderKilledAfterItsFundingIntentLocksOnceOnRestart() async throws {
        try await EndToEndNetwork.run(
            directory: try StoreFixture.directory(for: self),
            providerStore: { DyingSwapStore($0, diesAfter: ProviderSwapState.Kind.fundingIntent.rawValue, .reportingTheWrite) }) {
            try await providerRestart($0)
        }
    }

    private func clientRestart(_ network: EndToEndNetwork) async throws {
        let hub = network.hub
        let client = network.client
        let dying = try XCTUnwrap(client.store as? DyingSwapStore)
        let (destination, decision, before) = try await network.routeToPayee(amountSat: amount)
        let engine = client.engine
        let amount = self.amount
        do {
            _ = try await within(seconds: 60) {
                try await engine.pay(destination: destination, amountSat: amount, route: decision)
            }
            XCTFail("the node died before its claim left")
        } catch ClientEngineError.store(let what) {
            XCTAssertTrue(what.contains("claim_broadcast"), what)
        }
        await dying.waitForDeath()
        let swaps = try await client.disk.allSwaps(limit: 10)
        let id = try XCTUnwrap(swaps.first).id
        let stored = try await client.storedState(id)
        XCTAssertEqual(stored?.phase, .claimBroadcast)
        let claim = try XCTUnwrap(stored?.claim)
        let lock = try XCTUnwrap(stored?.verifiedLock)
        await client.kill()
        XCTAssertEqual(spends(of: lock.outPoint, on: hub), [], "killed before the broadcast")
        let providerKind = try await network.provider.lastKind(id)
        XCTAssertEqual(providerKind, "lock_broadcast", "the provider waits for a claim")

        let resumed = try await client.restart()
        XCTAssertEqual(resumed, [id])
        try await network.eventually("the stored claim is broadcast") { hub.chain.mempoolEntry(claim.txid) != nil }
        try await network.eventually("the provider settles") { try await network.provider.lastKind(id) == "settled" }
        try hub.mine(1)
        try await network.eventually("the client completes") { try await client.lastKind(id) == "completed" }

        XCTAssertEqual(spends(of: lock.outPoint, on: hub), [claim], "one claim: the stored one")
        let out = hub.chain.unspentOutput(OutPoint(txid: claim.txid, index: 0), includeMempool: false)
        XCTAssertEqual(out?.output, TransactionOutput(value: amount, scriptPubKey: destination.script))
        try await checkSettled(network, id: id, before: before, claimFeeSat: lock.value - amount)
    }

    private func providerRestart(_ network: EndToEndNetwork) async throws {
        let hub = network.hub
        let client = network.client
        let provider = network.provider
        let dying = try XCTUnwrap(provider.store as? DyingSwapStore)
        let (destination, decision, before) = try await network.routeToPayee(amountSat: amount)
        let engine = client.engine
        let amount = self.amount
        // The client pays and waits for a lock, through the provider's death and restart.
        let paying = Task { try await engine.pay(destination: destination, amountSat: amount, route: decision) }

        await dying.waitForDeath()
        let swaps = try await provider.disk.allSwaps(limit: 10)
        let id = try XCTUnwrap(swaps.first).id
        let intentFound = try await provider.recordedLock(id)
        let intended = try XCTUnwrap(intentFound)
        let kindsAtDeath = try await provider.kinds(id)
        XCTAssertEqual(kindsAtDeath.last, "funding_intent")
        XCTAssertNil(hub.chain.transaction(intended.txid), "killed before the lock was broadcast")

        try await provider.restart()
        let report = try await within(seconds: 60) { try await paying.value }
        XCTAssertEqual(report.swapID, id)
        try hub.mine(1)
        try await network.eventually("the client completes") { try await client.lastKind(id) == "completed" }
        try await network.eventually("the provider settles") { try await provider.lastKind(id) == "settled" }

        // Exactly one lock, the recorded one, and one claim of it.
        let contractScript = intended.transaction.outputs[Int(intended.outputIndex)].scriptPubKey
        XCTAssertEqual(hub.transactions(paying: contractScript, fromHeight: 0).map(\.txid), [intended.txid])
        let kinds = try await provider.kinds(id)
        XCTAssertEqual(kinds.filter { $0 == "funding_intent" }.count, 1, "\(kinds)")
        XCTAssertEqual(spends(of: intended.outPoint, on: hub).map(\.txid), [report.claimTxid])
        let out = hub.chain.unspentOutput(OutPoint(txid: report.claimTxid, index: 0), includeMempool: false)
        XCTAssertEqual(out?.output, TransactionOutput(value: amount, scriptPubKey: destination.script))
        try await checkSettled(network, id: id, before: before, claimFeeSat: report.claimFeeSat)
    }

    /// Both records final, the invoice settled, and the money where it belongs.
    private func checkSettled(_ network: EndToEndNetwork, id: String, before: EndToEndNetwork.Balances, claimFeeSat: Int64,
                              file: StaticString = #filePath, line: UInt = #line) async throws {
        let secrets = try await network.client.secrets(of: id)
        let invoice = try await network.provider.lnd.lookupInvoice(paymentHash: secrets.paymentHash)
        XCTAssertEqual(invoice.state, .settled, file: file, line: line)
        let payment = try network.hub.lightning.payment(node: "client", paymentHash: secrets.paymentHash)
        XCTAssertEqual(payment.status, .succeeded, file: file, line: line)
        let lockFound = try await network.provider.recordedLock(id)
        let lock = try XCTUnwrap(lockFound, file: file, line: line)
        let after = try await network.balances()
        XCTAssertEqual(before.lightningMsat("client") - after.lightningMsat("client"), invoice.amountMsat + payment.feeMsat,
                       file: file, line: line)
        XCTAssertEqual(after.lightningMsat("provider") - before.lightningMsat("provider"), invoice.amountMsat,
                       file: file, line: line)
        XCTAssertTrue(after.lightning.isConserved, file: file, line: line)
        XCTAssertEqual(after.payeeChainSat - before.payeeChainSat, amount, file: file, line: line)
        XCTAssertEqual(before.providerChainSat - after.providerChainSat, amount + claimFeeSat + lock.fee,
                       "one lock's worth left the provider's wallet", file: file, line: line)
        let state = try await network.client.storedState(id)
        XCTAssertEqual(state?.outcome?.funds, .delivered, file: file, line: line)
    }
}
