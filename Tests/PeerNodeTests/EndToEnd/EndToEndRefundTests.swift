import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Regtest
import TestSupport
import Transport
import XCTest

/// The client pays and then never claims (its node dies right after the payment left):
/// the provider refunds its lock after the timeout and only then cancels the invoice, so
/// the client's payment comes back. Nobody loses anything but miner fees.
final class EndToEndRefundTests: XCTestCase {
    private let amount: Int64 = 100_000

    func testAClientThatNeverClaimsIsRefundedAndItsPaymentReturns() async throws {
        try await EndToEndNetwork.run(
            directory: try StoreFixture.directory(for: self),
            clientStore: { DyingSwapStore($0, diesAfter: ClientSwapPhase.payStarted.rawValue, .atTheNextWrite) }) {
            try await neverClaimed($0)
        }
    }

    private func neverClaimed(_ network: EndToEndNetwork) async throws {
        let hub = network.hub
        let client = network.client
        let provider = network.provider
        let dying = try XCTUnwrap(client.store as? DyingSwapStore)
        let (destination, decision, before) = try await network.routeToPayee(amountSat: amount)
        let engine = client.engine
        let amount = self.amount

        // The payment leaves, then the node dies at its next write: `pay` ends without a claim.
        do {
            _ = try await within(seconds: 60) {
                try await engine.pay(destination: destination, amountSat: amount, route: decision)
            }
            XCTFail("a dead node broadcasts no claim")
        } catch ClientEngineError.store {
            // The run stopped at the failed write.
        }
        await dying.waitForDeath()
        let swaps = try await client.disk.allSwaps(limit: 10)
        XCTAssertEqual(swaps.count, 1)
        let id = try XCTUnwrap(swaps.first).id
        let lastOnDisk = try await client.lastKind(id)
        XCTAssertEqual(lastOnDisk, "pay_started", "nothing after the payment intent was recorded")
        await client.kill()
        let first = try XCTUnwrap(swaps.first)
        let secrets = try SwapKeyChain(seed: SwapClientNode.seed, network: .regtest).secrets(index: first.swapIndex,
                                                                                             scheme: first.keyScheme)

        // The provider still locks: the payment is held at its hold invoice.
        try await network.eventually("the provider locks") { try await provider.lastKind(id) == "lock_broadcast" }
        let lockFound = try await provider.recordedLock(id)
        let lock = try XCTUnwrap(lockFound)
        let heldInvoice = try await provider.lnd.lookupInvoice(paymentHash: secrets.paymentHash)
        XCTAssertEqual(heldInvoice.state, .accepted)
        XCTAssertEqual(try hub.lightning.payment(node: "client", paymentHash: secrets.paymentHash).status, .inFlight)

        // Past the timeout: the provider refunds, the refund confirms, the invoice is cancelled.
        let record = try await provider.disk.swap(id)
        let timeout = Int(try ProviderSwapRecord(record: try XCTUnwrap(record), network: .regtest).accept.body.timeoutHeight)
        try hub.mine(max(0, timeout - hub.height))
        try await network.eventually("the refund is broadcast") { try await provider.lastKind(id) == "refund_broadcast" }
        let refundSpends = spends(of: lock.outPoint, on: hub)
        XCTAssertEqual(refundSpends.count, 1, "one refund, nothing else spends the lock")
        let refund = try XCTUnwrap(refundSpends.first)
        let refundPaysProvider = await provider.wallet.owns(try XCTUnwrap(refund.outputs.first).scriptPubKey)
        XCTAssertTrue(refundPaysProvider, "the refund pays the provider's wallet")
        XCTAssertTrue(hub.backend.verifiedTransactions.contains(refund.txid), "kernel-verified")
        // The invoice is given up once the refund is deep (ProviderSwapMachine.refundCancelDepth).
        try hub.mine(ProviderSwapMachine.refundCancelDepth)
        try await network.eventually("the provider's swap ends refunded") { try await provider.lastKind(id) == "refunded" }
        let providerKinds = try await provider.kinds(id)
        XCTAssertEqual(providerKinds, ["invoice_created", "invoice_accepted", "funding_intent", "lock_broadcast",
                                       "lock_confirmed", "refund_intent", "refund_broadcast", "refunded"])

        // Lightning: the invoice is cancelled and the client's payment failed back in full.
        let cancelled = try await provider.lnd.lookupInvoice(paymentHash: secrets.paymentHash)
        XCTAssertEqual(cancelled.state, .canceled)
        XCTAssertEqual(try hub.lightning.payment(node: "client", paymentHash: secrets.paymentHash).status, .failed)
        var after = try await network.balances()
        XCTAssertEqual(after.lightningMsat("client"), before.lightningMsat("client"), "the payment returned")
        XCTAssertEqual(after.lightningMsat("provider"), before.lightningMsat("provider"))
        XCTAssertEqual(after.lightning.inFlightMsat, 0)
        XCTAssertTrue(after.lightning.isConserved)

        // The chain: the provider lost only the lock's and the refund's miner fees; the
        // preimage never appeared; the destination received nothing.
        let refundFee = try network.minerFee(of: refund.txid)
        XCTAssertEqual(before.providerChainSat - after.providerChainSat, lock.fee + refundFee)
        XCTAssertEqual(after.payeeChainSat, before.payeeChainSat)
        XCTAssertFalse(hub.transactions(paying: destination.script, fromHeight: 0).contains { _ in true })
        XCTAssertFalse(revealed(secrets.preimage, on: hub), "the preimage never left the client")

        // The client's node comes back: its record ends final and says the money came back,
        // and resuming the payment does not pay a cancelled invoice again.
        let resumed = try await client.restart()
        XCTAssertEqual(resumed, [id])
        try await network.eventually("the client's record ends") { try await client.storedState(id)?.phase.isFinal == true }
        let final = try await client.storedState(id)
        XCTAssertEqual(final?.phase, .failed, "\(String(describing: final))")
        XCTAssertEqual(final?.outcome?.funds, .returned, "\(String(describing: final))")
        XCTAssertNil(final?.claim)
        after = try await network.balances()
        XCTAssertEqual(after.lightningMsat("client"), before.lightningMsat("client"), "still returned after the resume")
        XCTAssertFalse(revealed(secrets.preimage, on: hub))
    }

    private func revealed(_ preimage: [UInt8], on hub: HubFixture) -> Bool {
        everyTransaction(on: hub).contains { $0.inputs.contains { $0.witness.stack.contains(preimage) } }
    }
}
