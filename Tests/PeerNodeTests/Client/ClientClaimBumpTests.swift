import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Transport
import XCTest

/// Audit M-3: when and how an unconfirmed claim is bumped, on the hub (the claim held out
/// of blocks by `RegtestChain.hold`).
final class ClientClaimBumpTests: XCTestCase {
    private let amount: Int64 = 100_000

    /// The claim versions in the mempool or on chain spending the lock of `claim`.
    private static func versions(_ fixture: ClientEngineFixture, of claim: Transaction) -> [TransactionID] {
        fixture.spends(of: claim.inputs[0].previousOutput).map(\.txid)
    }

    private func mine(_ fixture: ClientEngineFixture, _ count: Int) async throws {
        for _ in 0..<count {
            try fixture.hub.mine(1)
            // The engine handles the block (rebroadcast, maybe a bump) before the next.
            try await Task.sleep(for: .milliseconds(400))
        }
    }

    /// A swap-out's claim unconfirmed for 3 blocks is bumped at the node's estimate, far
    /// from the timeout (it was bumped only near the timeout or at every block before).
    func testAClaimUnconfirmedForThreeBlocksIsBumped() async throws {
        let fixture = try await ClientEngineFixture(lock: .honest)
        fixture.hub.chain.setFeeEstimate(.feeRate(2_000))
        let engine = try fixture.engine()
        let decision = try await fixture.route(amountSat: amount)
        let report = try await fixture.pay(engine, amountSat: amount, route: decision, purpose: .swapOut, within: 60)
        let claim = try XCTUnwrap(fixture.hub.chain.transaction(report.claimTxid)?.transaction)
        XCTAssertTrue(fixture.hub.chain.hold(claim.txid))
        fixture.hub.chain.setFeeEstimate(.feeRate(5_000))

        try await mine(fixture, 2)
        XCTAssertEqual(Self.versions(fixture, of: claim), [claim.txid], "2 unconfirmed blocks: not bumped yet")
        try await mine(fixture, 1)
        try await clientEventually("the claim is bumped after 3 unconfirmed blocks") {
            Self.versions(fixture, of: claim) != [claim.txid]
        }
        let bump = try XCTUnwrap(fixture.spends(of: claim.inputs[0].previousOutput).first)
        XCTAssertLessThan(bump.outputs[0].value, claim.outputs[0].value, "the bump pays more fee")
        _ = fixture.hub.chain.release(claim.txid)
        try fixture.hub.mine(1)
        try await clientEventually("the swap completes") { try await fixture.lastKind(of: report.swapID) == "completed" }
        await fixture.shutDown(engine)
    }

    /// Near the timeout the node has no estimate: the claim is not rebuilt at the
    /// configured fallback rate (10 sat/vB) but kept at its rate, with a note; once the
    /// node estimates again, the bump follows.
    func testNearTheTimeoutAFallbackRateIsNeverUsedForAClaim() async throws {
        let fixture = try await ClientEngineFixture(lock: .honest)
        fixture.hub.chain.setFeeEstimate(.feeRate(2_000))
        let engine = try fixture.engine()
        let decision = try await fixture.route(amountSat: amount)
        let report = try await fixture.pay(engine, amountSat: amount, route: decision, within: 60)
        let claim = try XCTUnwrap(fixture.hub.chain.transaction(report.claimTxid)?.transaction)
        XCTAssertTrue(fixture.hub.chain.hold(claim.txid))
        fixture.hub.chain.setFeeEstimate(.noData)
        let providerSwaps = await fixture.provider.swaps
        let timeout = Int(try XCTUnwrap(providerSwaps.values.first).contract.terms.timeoutHeight)
        // Into the near-timeout window, where a contact payment may be bumped at all.
        try fixture.hub.mine(timeout - ClaimPolicy.default.lowerAmountWithinBlocks - fixture.hub.chain.tip.height - 1)
        try await mine(fixture, 3)
        XCTAssertEqual(Self.versions(fixture, of: claim), [claim.txid], "no bump at a rate the node did not estimate")
        XCTAssertTrue(fixture.progress.all.contains { $0.stage == .note && $0.detail.contains("has no fee estimate") },
                      "\(fixture.progress.all.map(\.detail))")

        fixture.hub.chain.setFeeEstimate(.feeRate(20_000))
        try await mine(fixture, 1)
        try await clientEventually("estimated again: the claim is bumped") { Self.versions(fixture, of: claim) != [claim.txid] }
        await fixture.shutDown(engine)
    }
}
