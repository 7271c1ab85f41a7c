import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Regtest
import Transport
import XCTest

/// Issue 8's crash rule, node by node and state by state: a node is killed right after
/// each state it persists (the write on disk, the act it announces not done), started
/// again on the same file, and the hub mines on. Every swap must end completed (the
/// destination holds X, the invoice settled) or undone (the payment back, the lock
/// refunded or never made), both records final and saying the same thing, nobody out of
/// pocket beyond miner fees and the agreed fees.
final class EndToEndCrashMatrixTests: XCTestCase {
    private let amount: Int64 = 100_000

    func testTheClientKilledAtEachPersistedStateStillEndsSafely() async throws {
        for kind in ["quoted", "accepted", "pay_started", "payment_in_flight", "lock_seen", "lock_verified",
                     "claim_broadcast", "claim_confirmed", "completed"] {
            try await crash(.client, after: kind)
        }
    }

    func testTheProviderKilledAtEachPersistedStateStillEndsSafely() async throws {
        for kind in ["invoice_created", "invoice_accepted", "funding_intent", "lock_broadcast", "claim_observed", "settled"] {
            try await crash(.provider, after: kind)
        }
    }

    /// Issue 17: with cooperative claims, at every state the round writes between the
    /// nonce exchange and the broadcast; and no nonce ever signs two messages.
    func testTheClientKilledAtEachCooperativeStateStillEndsSafely() async throws {
        for kind in ["coop_requested", "claim_broadcast"] { try await crash(.client, after: kind, cooperation: .on) }
    }

    func testTheProviderKilledAtEachCooperativeStateStillEndsSafely() async throws {
        for kind in ["coop_signed", "settled"] { try await crash(.provider, after: kind, cooperation: .on) }
    }

    private enum Victim: String { case client, provider }

    private func crash(_ victim: Victim, after kind: String, cooperation: SwapProviderNode.Cooperation = .off,
                       file: StaticString = #filePath, line: UInt = #line) async throws {
        let directory = try StoreFixture.directory(for: self)
        let dying: @Sendable (SQLiteSwapStore) -> any SwapStore = { DyingSwapStore($0, diesAfter: kind, .reportingTheWrite) }
        try await EndToEndNetwork.run(directory: directory, cooperation: cooperation,
                                      providerStore: victim == .provider ? dying : { $0 },
                                      clientStore: victim == .client ? dying : { $0 }) {
            try await crash(victim, after: kind, in: $0, file: file, line: line)
        }
    }

    private func crash(_ victim: Victim, after kind: String, in network: EndToEndNetwork,
                       file: StaticString, line: UInt) async throws {
        let hub = network.hub
        let client = network.client
        let provider = network.provider
        let label = "\(victim.rawValue) killed after \(kind)"
        let store = try XCTUnwrap((victim == .client ? client.store : provider.store) as? DyingSwapStore)
        let (destination, decision, before) = try await network.routeToPayee(amountSat: amount)
        let engine = client.engine
        let amount = self.amount
        let paying = Task { try await engine.pay(destination: destination, amountSat: amount, route: decision) }

        // Some states come only with a block (the claim's confirmation): mine until the
        // victim dies or its swap ends without reaching the state.
        var mined = 0
        try await network.eventually("\(label): the kill point") {
            if await store.isDead { return true }
            if paying.isCancelled { return true }
            let records = try await client.disk.allSwaps(limit: 1)
            if let id = records.first?.id, try await client.storedState(id)?.phase.isFinal == true {
                return true
            }
            if mined < 3, (try? await client.storedState(records.first?.id ?? ""))?.phase.claimIsOut == true {
                try hub.mine(1)
                mined += 1
            }
            return false
        }
        let died = await store.isDead
        XCTAssertTrue(died, "\(label): the state was reached", file: file, line: line)
        if victim == .client {
            await client.kill()
            try await client.restart()
        } else {
            try await provider.restart()
        }

        // The chain goes on until both sides are done (past the timeout if need be).
        let swaps = try await client.disk.allSwaps(limit: 10)
        XCTAssertEqual(swaps.count, 1, label, file: file, line: line)
        let id = try XCTUnwrap(swaps.first, label, file: file, line: line).id
        var blocks = 0
        while true {
            let clientDone = try await client.storedState(id)?.phase.isFinal == true
            let providerKind = try await provider.lastKind(id)
            let providerDone = providerKind.map { ["settled", "refunded", "cancelled"].contains($0) } ?? true
            if clientDone && providerDone { break }
            guard blocks < 80 else {
                let clientPhase = try await client.storedState(id)?.phase
                XCTFail("\(label): not finished after \(blocks) blocks: client \(String(describing: clientPhase)), "
                        + "provider \(String(describing: providerKind))\n"
                        + (provider.log.all.suffix(20) + client.log.all.suffix(20)).joined(separator: "\n"), file: file, line: line)
                return
            }
            try await Task.sleep(for: .milliseconds(60))
            try hub.mine(1)
            blocks += 1
        }
        _ = await paying.result

        // Both records final and in agreement; the money where that says it is.
        let storedState = try await client.storedState(id)
        let clientState = try XCTUnwrap(storedState, label, file: file, line: line)
        let providerKind = try await provider.lastKind(id)
        let after = try await network.balances()
        XCTAssertTrue(after.lightning.isConserved, label, file: file, line: line)
        XCTAssertEqual(after.lightning.inFlightMsat, 0, label, file: file, line: line)
        let secrets = try await client.secrets(of: id)
        let lockFound = try await provider.recordedLock(id)
        let locks = lockFound.map { lock in
            hub.transactions(paying: lock.transaction.outputs[Int(lock.outputIndex)].scriptPubKey, fromHeight: 0)
        } ?? []
        XCTAssertLessThanOrEqual(locks.count, 1, "\(label): at most one lock", file: file, line: line)

        if clientState.phase == .completed {
            XCTAssertEqual(providerKind, "settled", label, file: file, line: line)
            XCTAssertEqual(after.payeeChainSat - before.payeeChainSat, amount, label, file: file, line: line)
            let invoice = try await provider.lnd.lookupInvoice(paymentHash: secrets.paymentHash)
            XCTAssertEqual(invoice.state, .settled, label, file: file, line: line)
            let payment = try hub.lightning.payment(node: "client", paymentHash: secrets.paymentHash)
            XCTAssertEqual(before.lightningMsat("client") - after.lightningMsat("client"), invoice.amountMsat + payment.feeMsat,
                           label, file: file, line: line)
            XCTAssertEqual(after.lightningMsat("provider") - before.lightningMsat("provider"), invoice.amountMsat,
                           label, file: file, line: line)
            let lock = try XCTUnwrap(lockFound, label, file: file, line: line)
            let claimFee = lock.output.value - amount
            XCTAssertEqual(before.providerChainSat - after.providerChainSat, amount + claimFee + lock.fee,
                           label, file: file, line: line)
        } else {
            XCTAssertNotEqual(providerKind, "settled", "\(label): paid only for a delivery", file: file, line: line)
            XCTAssertNil(clientState.claim, "\(label): no claim, so nothing revealed", file: file, line: line)
            XCTAssertNotEqual(clientState.outcome?.funds, .delivered, label, file: file, line: line)
            XCTAssertEqual(after.lightningMsat("client"), before.lightningMsat("client"), "\(label): the payment is back",
                           file: file, line: line)
            XCTAssertEqual(after.payeeChainSat, before.payeeChainSat, label, file: file, line: line)
            var minerFees: Int64 = 0
            if let lock = lockFound, !locks.isEmpty {
                minerFees += lock.fee
                for spend in spends(of: lock.outPoint, on: hub) { minerFees += try network.minerFee(of: spend.txid) }
            }
            XCTAssertEqual(before.providerChainSat - after.providerChainSat, minerFees, "\(label): refunded", file: file, line: line)
        }
        let audit = try CoopNonceAudit(clientEvents: try await client.disk.events(of: id),
                                       providerEvents: try await provider.disk.events(of: id))
        audit.check(label, file: file, line: line)
        if let lock = lockFound {
            let keyPathSpends = spends(of: lock.outPoint, on: hub).filter { $0.inputs[0].witness.stack.count == 1 }
            XCTAssertLessThanOrEqual(keyPathSpends.count, 1, "\(label): one aggregate signature per lock", file: file, line: line)
        }
        print("crash matrix: \(label): client \(clientState.phase.rawValue) (\(clientState.outcome?.funds.rawValue ?? "-")), "
              + "provider \(providerKind ?? "no swap"), \(blocks) blocks mined after the restart")
    }
}
