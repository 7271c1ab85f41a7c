import Bitcoin
import HTLC
@testable import PeerNode
import Regtest
import XCTest

/// A block mined between the wallet's chain pass and its mempool listing (found by
/// `peernode-testnet bench`: a provider's lock refused with bad-txns-inputs-missingorspent
/// under a block a second). The listing no longer holds the wallet's pending transaction
/// the block mined, but the wallet has not applied that block yet.
final class WalletSyncRaceTests: XCTestCase {
    private let coin: Int64 = 5_000_000_000

    func testATransactionMinedBetweenTheChainPassAndTheMempoolListingKeepsItsCoinsSpent() async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        let wallet = try fixture.wallet()
        try fixture.chain.mine(101, to: await wallet.newAddress().scriptPubKey)
        try await wallet.sync()
        let sent = try await wallet.send(to: WalletFixture.elsewhere, amount: 100_000_000, feeRate: WalletFixture.rate(2))
        let spent = sent.transaction.inputs[0].previousOutput

        let chain = fixture.chain
        fixture.backend.beforeNextMempoolListing { _ = try? chain.mine(1, to: WalletFixture.elsewhere.script) }
        try await wallet.sync()
        XCTAssertNotNil(fixture.confirmations(of: sent.txid), "the block the test mined holds the payment")

        let known = await wallet.transaction(sent.txid)
        XCTAssertNotNil(known, "the payment is still known to the wallet")
        let reserved = await wallet.reservedOutPoints()
        XCTAssertTrue(reserved.contains(spent), "the coin the payment spent is not offered again")
        let balance = await wallet.balance()
        XCTAssertEqual(balance.confirmed, coin, "only the coin the payment did not spend is confirmed and unspent")

        // A payment that needs a whole coin takes the other one, and the chain accepts it.
        let next = try await wallet.send(to: WalletFixture.elsewhere, amount: 4_000_000_000, feeRate: WalletFixture.rate(2))
        XCTAssertNotEqual(next.transaction.inputs[0].previousOutput, spent)

        // The next sync applies the block: the payment confirmed, its change spendable.
        try await wallet.sync()
        let confirmed = await wallet.transaction(sent.txid)
        XCTAssertNotNil(confirmed?.height, "the payment is confirmed once its block is applied")
    }
}
