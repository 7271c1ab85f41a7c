import Bitcoin
import HTLC
@testable import PeerNode
import Regtest
import XCTest

/// A provider's capacity (issue 14): with `minimumConfirmations` 0 the wallet spends its own
/// unconfirmed change, so one coin funds several locks before the next block, each lock
/// spending the change of the one before; it stops at its share of Core v31's cluster
/// limits, and its capacity says how much is lockable now and how much waits for a block.
final class WalletChainedFundingTests: XCTestCase {
    /// One mature coin (block 1's coinbase) and a tip of 101.
    private func oneCoinWallet(_ fixture: WalletFixture, minimumConfirmations: Int,
                               clusterShare: Int = WalletConfiguration.defaultUnconfirmedClusterShare) async throws -> Wallet {
        var configuration = WalletConfiguration(network: .regtest, birthdayHeight: 0,
                                                minimumConfirmations: minimumConfirmations)
        configuration.unconfirmedClusterShare = clusterShare
        let wallet = try Wallet(seed: WalletFixture.seed(0x01), configuration: configuration, backend: fixture.backend)
        try fixture.chain.mine(1, to: await wallet.newAddress().scriptPubKey)
        try fixture.mineElsewhere(100)
        try await wallet.sync()
        return wallet
    }

    func testOneCoinFundsFiveLocksBeforeTheNextBlockEachOnThePreviousChange() async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        let wallet = try await oneCoinWallet(fixture, minimumConfirmations: 0)
        var fundings: [ContractFunding] = []
        for index in 0..<5 {
            fundings.append(try await wallet.fund(contract: try WalletFixture.contract(index), amount: 100_000,
                                                  feeRate: WalletFixture.rate(2)))
        }
        for (earlier, later) in zip(fundings, fundings.dropFirst()) {
            XCTAssertEqual(later.transaction.inputs.map(\.previousOutput.txid), [earlier.txid],
                           "each lock spends the change of the one before")
        }
        for funding in fundings { _ = try fixture.mempoolEntry(funding.txid) }
        try fixture.mineElsewhere(1)
        try await wallet.sync()
        for funding in fundings { XCTAssertEqual(fixture.confirmations(of: funding.txid), 1) }
    }

    /// Five locks prepared at once from one coin (`single-coin-5`): while one lock is
    /// prepared and not yet broadcast, its change is not spendable, so the next lock finds
    /// no coin. The wallet says so in the same turn as the failed selection — wait for the
    /// broadcast — rather than leaving the caller to ask afterwards, when a broadcast in
    /// between would have made it give the payment back for funds it had.
    func testALockShortOfCoinsWaitsOnlyWhileAPreparedLockHoldsThem() async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        let wallet = try await oneCoinWallet(fixture, minimumConfirmations: 0)
        let rate = WalletFixture.rate(2)
        let first = try await wallet.prepareFunding(contract: try WalletFixture.contract(0), amount: 100_000, feeRate: rate)
        let blocked = try await wallet.prepareFundingOrWait(contract: try WalletFixture.contract(1), amount: 100_000,
                                                            feeRate: rate)
        guard case .waitForBroadcast = blocked else { return XCTFail("a held coin was not waited for: \(blocked)") }
        _ = try await wallet.publish(first.transaction)
        let attempt = try await wallet.prepareFundingOrWait(contract: try WalletFixture.contract(1), amount: 100_000,
                                                            feeRate: rate)
        guard case .prepared(let second) = attempt else { return XCTFail("not prepared after the broadcast: \(attempt)") }
        XCTAssertEqual(second.transaction.inputs.map(\.previousOutput.txid), [first.txid], "the lock spends the change")
        _ = try await wallet.publish(second.transaction)
        // Nothing prepared and unpublished: a shortfall is final.
        let third = try WalletFixture.contract(2)
        do {
            let tooMuch = try await wallet.prepareFundingOrWait(contract: third,
                                                                amount: 100 * 100_000_000, feeRate: rate)
            XCTFail("a lock beyond the wallet's funds was answered \(tooMuch)")
        } catch .insufficientFunds {
        }
    }

    /// Confirmed coins come first, as in Core's wallet: a lock that spends unconfirmed change
    /// makes a zero-conf client wait for a block (`ClientLockHolding`), so the change is
    /// spent only once the confirmed coins cannot pay. Here the unconfirmed change (49 BTC)
    /// is larger than the confirmed coin (25 BTC, a coinbase past regtest's first halving),
    /// so "largest first" alone would chain on it.
    func testConfirmedCoinsAreSpentBeforeUnconfirmedChange() async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        let configuration = WalletConfiguration(network: .regtest, birthdayHeight: 0, minimumConfirmations: 0)
        let wallet = try Wallet(seed: WalletFixture.seed(0x01), configuration: configuration, backend: fixture.backend)
        try fixture.chain.mine(1, to: await wallet.newAddress().scriptPubKey)
        try fixture.mineElsewhere(150)
        try fixture.chain.mine(1, to: await wallet.newAddress().scriptPubKey)
        try fixture.mineElsewhere(100)
        try await wallet.sync()
        let coinbases = Dictionary(uniqueKeysWithValues: await wallet.spendableCoins().map { ($0.value, $0.outPoint) })
        XCTAssertEqual(coinbases.keys.sorted(), [2_500_000_000, 5_000_000_000])

        let bitcoin: Int64 = 100_000_000
        let first = try await wallet.fund(contract: try WalletFixture.contract(0), amount: bitcoin, feeRate: WalletFixture.rate(2))
        XCTAssertEqual(first.transaction.inputs.map(\.previousOutput), [coinbases[5_000_000_000]])
        let second = try await wallet.fund(contract: try WalletFixture.contract(1), amount: bitcoin, feeRate: WalletFixture.rate(2))
        XCTAssertEqual(second.transaction.inputs.map(\.previousOutput), [coinbases[2_500_000_000]],
                       "the confirmed coin, not the larger unconfirmed change")
        // No confirmed coin is left: the change pays, before the next block.
        let third = try await wallet.fund(contract: try WalletFixture.contract(2), amount: bitcoin, feeRate: WalletFixture.rate(2))
        XCTAssertEqual(third.transaction.inputs.count, 1)
        XCTAssertTrue([first.txid, second.txid].contains(third.transaction.inputs[0].previousOutput.txid), "a change")
        for funding in [first, second, third] { _ = try fixture.mempoolEntry(funding.txid) }
    }

    /// The old rule (confirmed coins only): the second lock waits for a block.
    func testWithOneConfirmationRequiredTheSecondLockWaitsForABlock() async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        let wallet = try await oneCoinWallet(fixture, minimumConfirmations: 1)
        _ = try await wallet.fund(contract: try WalletFixture.contract(0), amount: 100_000, feeRate: WalletFixture.rate(2))
        do {
            _ = try await wallet.fund(contract: try WalletFixture.contract(1), amount: 100_000, feeRate: WalletFixture.rate(2))
            XCTFail("the change is unconfirmed")
        } catch WalletError.insufficientFunds {}
    }

    /// The wallet's share of a cluster: with a share of 3, the fourth chained lock is refused
    /// until a block confirms the first three, and the capacity says so.
    func testChainedSpendsStopAtTheClusterShareUntilABlock() async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        let wallet = try await oneCoinWallet(fixture, minimumConfirmations: 0, clusterShare: 3)
        let coin: Int64 = 5_000_000_000
        var fees: Int64 = 0
        for index in 0..<3 {
            fees += try await wallet.fund(contract: try WalletFixture.contract(index), amount: 100_000,
                                          feeRate: WalletFixture.rate(2)).fee
        }
        let change = coin - 300_000 - fees
        let capacity = await wallet.capacity()
        XCTAssertEqual(capacity, WalletCapacity(lockableSat: 0, waitingSat: change))
        do {
            _ = try await wallet.fund(contract: try WalletFixture.contract(3), amount: 100_000, feeRate: WalletFixture.rate(2))
            XCTFail("a fourth transaction would pass the wallet's share of the cluster")
        } catch WalletError.insufficientFunds {}

        try fixture.mineElsewhere(1)
        try await wallet.sync()
        let after = await wallet.capacity()
        XCTAssertEqual(after, WalletCapacity(lockableSat: change, waitingSat: 0))
        _ = try await wallet.fund(contract: try WalletFixture.contract(3), amount: 100_000, feeRate: WalletFixture.rate(2))
    }

    /// Two unconfirmed changes, each within the share alone, would join their clusters in
    /// one transaction: with a share of 2 that is 3 transactions, so the wallet falls back
    /// to confirmed coins (none here); with a share of 3 it spends both.
    func testSpendingChangesOfTwoClustersCountsThemTogether() async throws {
        for (share, allowed) in [(2, false), (3, true)] {
            let fixture = try WalletFixture()
            defer { fixture.close() }
            var configuration = WalletConfiguration(network: .regtest, birthdayHeight: 0, minimumConfirmations: 0)
            configuration.unconfirmedClusterShare = share
            let wallet = try Wallet(seed: WalletFixture.seed(0x01), configuration: configuration, backend: fixture.backend)
            try fixture.chain.mine(2, to: await wallet.newAddress().scriptPubKey)
            try fixture.mineElsewhere(100)
            try await wallet.sync()
            // Two locks, each from its own coinbase (largest first: 50 BTC before 49.99... change).
            let first = try await wallet.fund(contract: try WalletFixture.contract(0), amount: 100_000, feeRate: WalletFixture.rate(2))
            let second = try await wallet.fund(contract: try WalletFixture.contract(1), amount: 100_000, feeRate: WalletFixture.rate(2))
            XCTAssertNotEqual(first.transaction.inputs[0].previousOutput.txid, second.txid)
            XCTAssertNotEqual(second.transaction.inputs[0].previousOutput.txid, first.txid, "two clusters")
            do {
                let big = try await wallet.fund(contract: try WalletFixture.contract(2), amount: 6_000_000_000,
                                                feeRate: WalletFixture.rate(2))
                XCTAssertTrue(allowed, "share \(share): the joined cluster would hold 3 transactions")
                XCTAssertEqual(Set(big.transaction.inputs.map(\.previousOutput.txid)), [first.txid, second.txid])
                _ = try fixture.mempoolEntry(big.txid)
            } catch WalletError.insufficientFunds {
                XCTAssertFalse(allowed, "share \(share) leaves room for both changes")
            }
        }
    }

    /// A lock's change is lockable at once: the offer's maximum counts it.
    func testTheChangeOfALockIsLockableAtOnce() async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        let wallet = try await oneCoinWallet(fixture, minimumConfirmations: 0)
        let funding = try await wallet.fund(contract: try WalletFixture.contract(0), amount: 100_000,
                                            feeRate: WalletFixture.rate(2))
        let change = 5_000_000_000 - 100_000 - funding.fee
        let capacity = await wallet.capacity()
        XCTAssertEqual(capacity, WalletCapacity(lockableSat: change, waitingSat: 0))
    }
}
