#if canImport(Glibc)
import Glibc
#endif
import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Transport
import XCTest

/// Zero-conf claims (regtest's default) against a provider that only pushes its lock:
/// a lock the client's own node does not hold is never claimed, and the preimage is
/// revealed only once the node has accepted the claim.
final class ClientZeroConfTests: XCTestCase {
    private let amount: Int64 = 100_000

    /// Audit H-3: the provider signs a valid lock, pushes it, never broadcasts it. Before
    /// the fix the client claimed it (the broadcast failed), pushed the preimage anyway,
    /// and the provider settled with no lock on chain.
    func testAPushedLockTheNodeDoesNotHoldIsNeverClaimedAndThePreimageStaysSecret() async throws {
        let fixture = try await ClientEngineFixture(lock: .pushOnly)
        let engine = try fixture.engine()
        let decision = try await fixture.route(amountSat: amount)
        let before = try fixture.clientBalanceMsat()
        let amount = self.amount
        let pay = Task { try await fixture.pay(engine, amountSat: amount, route: decision, within: 60) }

        try await clientEventually("the provider pushes its lock") { await fixture.provider.swaps.values.first?.lock != nil }
        let swaps = await fixture.provider.swaps
        let swap = try XCTUnwrap(swaps.values.first)
        let lock = try XCTUnwrap(swap.lock)
        // The client has the pushed lock (it verifies: right script, right amount) and
        // gets blocks in which it could retry; the node never learns the lock.
        try await Task.sleep(for: .seconds(1))
        for _ in 0..<2 {
            try fixture.hub.mine(1)
            try await Task.sleep(for: .milliseconds(500))
        }
        XCTAssertNil(fixture.hub.chain.transaction(lock.txid), "the lock was never broadcast")
        let pushes = await fixture.provider.preimagePushes
        XCTAssertEqual(pushes, [], "the preimage was never pushed")
        let settled = await fixture.provider.settled
        XCTAssertEqual(settled, [], "the provider could not settle")
        XCTAssertEqual(fixture.spends(of: lock.lock.outPoint), [], "no claim reached the chain")
        let records = try await fixture.store.allSwaps(limit: 1)
        let id = try XCTUnwrap(records.first).id
        let preimage = try await fixture.preimage(ofSwap: id)
        XCTAssertFalse(fixture.chainReveals(preimage), "the preimage is nowhere on chain")
        let kinds = try await fixture.kinds(of: id)
        XCTAssertFalse(kinds.contains("claim_broadcast"), "no claim was even signed for broadcast: \(kinds)")

        // The payment is held until the provider cancels; then it returns in full.
        XCTAssertLessThan(try fixture.clientBalanceMsat(), before)
        try await fixture.provider.cancelInvoice(of: swap.accept.body.swapID)
        do {
            _ = try await pay.value
            XCTFail("the swap cannot deliver")
        } catch ClientEngineError.swapEnded(_, let outcome) {
            XCTAssertEqual(outcome.funds, .returned, "\(outcome)")
        }
        try await clientEventually("the payment returns") { try fixture.clientBalanceMsat() == before }
        await fixture.shutDown(engine)
    }
}
