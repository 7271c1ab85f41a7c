import Bitcoin
import HTLC
@testable import PeerNode
import Regtest
import XCTest

/// Funding swap contracts concurrently, and fee bumps (RBF and CPFP), on the hub's chain.
final class WalletFundingTests: XCTestCase {
    private let coin: Int64 = 5_000_000_000

    func testTwentyConcurrentFundingsNeverShareAnInputAndAllConfirm() async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        let wallet = try fixture.wallet()
        // Tip 120: the coinbases of blocks 1...21 are mature, 21 coins.
        try fixture.chain.mine(120, to: await wallet.newAddress().scriptPubKey)
        try await wallet.sync()
        let contracts = try (0..<20).map { try WalletFixture.contract($0) }
        let rate = WalletFixture.rate(3)

        let fundings = try await withThrowingTaskGroup(of: (Int, ContractFunding).self) { group in
            for (index, contract) in contracts.enumerated() {
                group.addTask { (index, try await wallet.fund(contract: contract, amount: 10_000_000 + Int64(index), feeRate: rate)) }
            }
            var results: [Int: ContractFunding] = [:]
            for try await (index, funding) in group { results[index] = funding }
            return results
        }
        XCTAssertEqual(fundings.count, 20)
        let inputs = fundings.values.flatMap { $0.transaction.inputs.map(\.previousOutput) }
        XCTAssertEqual(Set(inputs).count, inputs.count, "no coin is spent twice")
        XCTAssertEqual(Set(fixture.backend.verifiedTransactions), Set(fundings.values.map(\.txid)))
        for (index, funding) in fundings {
            let lock = funding.transaction.outputs[funding.outputIndex]
            XCTAssertEqual(lock, contracts[index].lockOutput(value: 10_000_000 + Int64(index)))
            XCTAssertEqual(funding.lock.outPoint, OutPoint(txid: funding.txid, index: UInt32(funding.outputIndex)))
            XCTAssertEqual(funding.fee, rate.fee(forVirtualSize: funding.transaction.virtualSize))
            XCTAssertNotNil(fixture.chain.mempoolEntry(funding.txid))
        }

        try fixture.mineElsewhere(1)
        try await wallet.sync()
        for funding in fundings.values { XCTAssertEqual(fixture.confirmations(of: funding.txid), 1) }
        let reserved = await wallet.reservedOutPoints()
        XCTAssertTrue(reserved.isEmpty)
        let pending = await wallet.pendingTransactions()
        XCTAssertTrue(pending.isEmpty)
        let locked = fundings.values.reduce(Int64(0)) { $0 + $1.lock.value }
        let fees = fundings.values.reduce(Int64(0)) { $0 + $1.fee }
        // Tip 121: blocks 1...22 matured; 20 of those coins became locks, fees and change.
        let balance = await wallet.balance()
        XCTAssertEqual(balance, WalletBalance(confirmed: 22 * coin - locked - fees, unconfirmed: 0, immature: 98 * coin))

        // More than everything: the shortfall names the amounts.
        let spendable = await wallet.coins().filter { $0.isMature(tipHeight: 121) }
        let big = contracts[0].lockOutput(value: 2_000 * 100_000_000)
        let needed = big.value + rate.fee(forVirtualSize: TaprootSpendSize.virtualSize(inputCount: spendable.count, outputs: [big]))
        await assertThrows(.insufficientFunds(needed: needed, available: balance.confirmed)) {
            try await wallet.fund(contract: contracts[0], amount: big.value, feeRate: rate)
        }
    }

    func testAPreparedLockHoldsItsCoinsUntilPublishedOrDiscarded() async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        let wallet = try fixture.wallet()
        try fixture.chain.mine(101, to: await wallet.newAddress().scriptPubKey)
        try await wallet.sync()
        let contract = try WalletFixture.contract(1)
        let discarded = try await wallet.prepareFunding(contract: contract, amount: 1_000_000, feeRate: WalletFixture.rate(2))
        var reserved = await wallet.reservedOutPoints()
        XCTAssertEqual(reserved, Set(discarded.transaction.inputs.map(\.previousOutput)))
        XCTAssertNil(fixture.chain.mempoolEntry(discarded.txid), "nothing is broadcast before publish")
        await wallet.discard(discarded.txid)
        reserved = await wallet.reservedOutPoints()
        XCTAssertTrue(reserved.isEmpty)

        let prepared = try await wallet.prepareFunding(contract: contract, amount: 1_000_000, feeRate: WalletFixture.rate(2))
        let published = try await wallet.publish(prepared.transaction)
        XCTAssertEqual(published.txid, prepared.txid)
        XCTAssertEqual(published.fee, prepared.fee)
        XCTAssertNotNil(fixture.chain.mempoolEntry(prepared.txid))
        XCTAssertEqual(prepared.lock.value, 1_000_000)
    }

    /// A broadcast whose answer is lost (a timeout after the node took it) may have gone
    /// out: its coins stay reserved, so the next funding cannot spend them and, at a higher
    /// rate, replace a lock a client may already have claimed (review of 2026-12-07). A
    /// definite refusal still gives them back.
    func testCoinsOfABroadcastWhoseAnswerWasLostStayReserved() async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        let wallet = try fixture.wallet()
        try fixture.chain.mine(101, to: await wallet.newAddress().scriptPubKey)
        try await wallet.sync()
        let first = try await wallet.prepareFunding(contract: try WalletFixture.contract(1), amount: 1_000_000,
                                                    feeRate: WalletFixture.rate(2))
        let inputs = Set(first.transaction.inputs.map(\.previousOutput))
        fixture.backend.loseNextBroadcastAnswers(1)
        do {
            _ = try await wallet.publish(first.transaction)
            XCTFail("the lost answer is an error")
        } catch {}
        XCTAssertNotNil(fixture.chain.mempoolEntry(first.txid), "it went out")
        let reserved = await wallet.reservedOutPoints()
        XCTAssertTrue(inputs.isSubset(of: reserved), "its coins stay reserved")
        let second = try await wallet.prepareFunding(contract: try WalletFixture.contract(2), amount: 1_000_000,
                                                     feeRate: WalletFixture.rate(20))
        XCTAssertTrue(inputs.isDisjoint(with: second.transaction.inputs.map(\.previousOutput)), "never spent twice")
        await wallet.discard(second.txid)
        // The next sync finds it in the mempool: the wallet's, its coins spent by it.
        try await wallet.sync()
        let pending = await wallet.transaction(first.txid)
        XCTAssertNotNil(pending)
        let still = await wallet.reservedOutPoints()
        XCTAssertTrue(inputs.isSubset(of: still))
    }

    func testAFeeBumpReplacesAStuckTransaction() async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        let wallet = try fixture.wallet()
        try fixture.chain.mine(101, to: await wallet.newAddress().scriptPubKey)
        try await wallet.sync()
        // Asked for 0, paid the relay floor of 1 sat/vB: stuck behind anything better.
        let original = try await wallet.send(to: WalletFixture.elsewhere, amount: 300_000_000, feeRate: try FeeRate(satPerKvB: 0))
        let originalFee = try XCTUnwrap(original.fee)
        XCTAssertEqual(originalFee, Int64(original.virtualSize))

        let bumped = try await wallet.bumpFee(txid: original.txid, newRate: WalletFixture.rate(5))
        let bumpedFee = try XCTUnwrap(bumped.fee)
        XCTAssertEqual(bumped.transaction.inputs.map(\.previousOutput), original.transaction.inputs.map(\.previousOutput))
        XCTAssertTrue(bumped.transaction.inputs.allSatisfy { $0.sequence == TransactionInput.replaceableSequence })
        XCTAssertEqual(bumped.transaction.outputs[0], original.transaction.outputs[0], "the payment is unchanged")
        XCTAssertEqual(bumped.transaction.outputs[1].value, original.transaction.outputs[1].value - (bumpedFee - originalFee))
        XCTAssertEqual(bumpedFee, WalletFixture.rate(5).fee(forVirtualSize: bumped.virtualSize))
        XCTAssertEqual(fixture.backend.verifiedTransactions, [original.txid, bumped.txid])
        XCTAssertNil(fixture.chain.mempoolEntry(original.txid), "the mempool's RBF rules accepted the replacement")
        XCTAssertNotNil(fixture.chain.mempoolEntry(bumped.txid))
        let pendingIDs = await wallet.pendingTransactions().map(\.txid)
        XCTAssertEqual(pendingIDs, [bumped.txid])

        try fixture.mineElsewhere(1)
        try await wallet.sync()
        XCTAssertEqual(fixture.confirmations(of: bumped.txid), 1)
        XCTAssertNil(fixture.chain.transaction(original.txid), "the original is gone")
        let change = bumped.transaction.outputs[1].value
        let balance = await wallet.balance()
        XCTAssertEqual(balance, WalletBalance(confirmed: 2 * coin + change, unconfirmed: 0, immature: 98 * coin))

        await assertThrows(.notReplaceable(bumped.txid, reason: "it is already confirmed")) {
            try await wallet.bumpFee(txid: bumped.txid, newRate: WalletFixture.rate(10))
        }
        await assertThrows(.noSuchTransaction(original.txid)) {
            try await wallet.bumpFee(txid: original.txid, newRate: WalletFixture.rate(10))
        }
    }

    func testABumpOfALockKeepsItsOutputIndex() async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        let wallet = try fixture.wallet()
        try fixture.chain.mine(101, to: await wallet.newAddress().scriptPubKey)
        try await wallet.sync()
        let contract = try WalletFixture.contract(7)
        let funding = try await wallet.fund(contract: contract, amount: 5_000_000, feeRate: WalletFixture.rate(1))
        let bumped = try await wallet.bumpFee(txid: funding.txid, newRate: WalletFixture.rate(2))
        XCTAssertEqual(bumped.transaction.outputs[funding.outputIndex], contract.lockOutput(value: 5_000_000))
        // The minimum step is met even when the new rate asks for less than the rules need.
        let again = try await wallet.bumpFee(txid: bumped.txid, newRate: WalletFixture.rate(1))
        let bumpedFee = try XCTUnwrap(bumped.fee)
        XCTAssertEqual(again.fee, bumpedFee + Int64(again.virtualSize), "the old fee plus 1 sat/vB of incremental relay fee")
        XCTAssertNotNil(fixture.chain.mempoolEntry(again.txid))
    }

    func testAChildPaysForAStuckParent() async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        let wallet = try fixture.wallet()
        try fixture.chain.mine(101, to: await wallet.newAddress().scriptPubKey)
        try await wallet.sync()
        let parent = try await wallet.send(to: WalletFixture.elsewhere, amount: 300_000_000, feeRate: WalletFixture.rate(1))
        let child = try await wallet.bumpByChild(of: parent.txid, feeRate: WalletFixture.rate(20))
        XCTAssertEqual(child.transaction.inputs.map(\.previousOutput), [OutPoint(txid: parent.txid, index: 1)])
        XCTAssertEqual(child.transaction.outputs.count, 1)

        // The package (parent and child) pays 20 sat/vB, as a miner sees it.
        let entry = try fixture.mempoolEntry(child.txid)
        XCTAssertEqual(entry.ancestorCount, 2)
        XCTAssertGreaterThanOrEqual(entry.ancestorFees * 1_000, 20_000 * Int64(entry.ancestorSize))
        XCTAssertLessThan(entry.ancestorFees * 1_000, 20_000 * Int64(entry.ancestorSize) + 1_000,
                          "less than a sat over the target")
        XCTAssertEqual(fixture.backend.verifiedTransactions, [parent.txid, child.txid])

        // The parent cannot be replaced now without evicting the child; the wallet says so.
        do {
            _ = try await wallet.bumpFee(txid: parent.txid, newRate: WalletFixture.rate(30))
            XCTFail("a parent with a child was bumped")
        } catch {
            guard case .notReplaceable(parent.txid, _) = error else { return XCTFail("\(error)") }
        }

        try fixture.mineElsewhere(1)
        XCTAssertEqual(fixture.confirmations(of: parent.txid), 1)
        XCTAssertEqual(fixture.confirmations(of: child.txid), 1)
        try await wallet.sync()
        let balance = await wallet.balance()
        XCTAssertEqual(balance, WalletBalance(confirmed: 2 * coin + child.transaction.outputs[0].value, unconfirmed: 0,
                                              immature: 98 * coin))
        let pending = await wallet.pendingTransactions()
        XCTAssertTrue(pending.isEmpty)
    }
}
