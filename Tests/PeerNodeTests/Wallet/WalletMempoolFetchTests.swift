import Bitcoin
import HTLC
@testable import PeerNode
import Regtest
import XCTest

/// The wallet reads a new mempool transaction as bytes (Core's `getrawtransaction <txid>
/// false`), not as the verbose object: every wallet of a node fetches every new mempool
/// transaction once, and in the swap benchmark the verbose answers were a tenth of the
/// hub's CPU. The bytes do not say whether the transaction was mined since the listing;
/// the wallet then holds it as unconfirmed until it applies the block.
final class WalletMempoolFetchTests: XCTestCase {
    private let amount: Int64 = 25_000_000

    /// A second wallet of the same chain, funded, pays `receiver` without mining.
    private func payFromAnotherWallet(_ fixture: WalletFixture, to receiver: Wallet) async throws -> TransactionID {
        let payer = try fixture.wallet(seed: 0x02)
        try fixture.chain.mine(101, to: await payer.newAddress().scriptPubKey)
        try await payer.sync()
        let address = await receiver.newAddress().address
        return try await payer.send(to: address, amount: amount, feeRate: WalletFixture.rate(2)).txid
    }

    func testAMempoolPaymentIsReadAsBytesNotAsTheVerboseObject() async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        let receiver = try fixture.wallet()
        try await receiver.sync()
        let txid = try await payFromAnotherWallet(fixture, to: receiver)
        try await receiver.sync()  // the blocks the payer mined; the payment is seen already

        let before = fixture.backend.verboseLookupCount
        try await receiver.sync()
        let balance = await receiver.balance()
        XCTAssertEqual(balance.unconfirmed, amount, "the payment in the mempool is seen")
        let known = await receiver.transaction(txid)
        XCTAssertNotNil(known)
        XCTAssertNil(known?.height)
        XCTAssertEqual(fixture.backend.verboseLookupCount, before, "nothing more asked once seen")

        // A fresh wallet of the same seed sees the payment on its first sync, by its bytes.
        let restored = try fixture.wallet()
        let lookupsBefore = fixture.backend.verboseLookupCount
        try await restored.sync()
        let restoredBalance = await restored.balance()
        XCTAssertEqual(restoredBalance.unconfirmed, amount)
        XCTAssertEqual(fixture.backend.verboseLookupCount, lookupsBefore,
                       "the mempool transactions are fetched as bytes, without the verbose lookup")
    }

    func testAPaymentMinedBetweenTheListingAndItsFetchIsUnconfirmedUntilItsBlockIsApplied() async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        let receiver = try fixture.wallet()
        try await receiver.sync()
        let txid = try await payFromAnotherWallet(fixture, to: receiver)

        let chain = fixture.chain
        fixture.backend.afterNextMempoolListing { _ = try? chain.mine(1, to: WalletFixture.elsewhere.script) }
        try await receiver.sync()
        XCTAssertEqual(fixture.confirmations(of: txid), 1, "the block the test mined holds the payment")
        let pending = await receiver.transaction(txid)
        XCTAssertNotNil(pending, "the listed payment is known though mined since the listing")
        XCTAssertNil(pending?.height, "its block is not applied yet")
        let unconfirmed = await receiver.balance()
        XCTAssertEqual(unconfirmed, WalletBalance(confirmed: 0, unconfirmed: amount, immature: 0))

        try await receiver.sync()
        let confirmed = await receiver.transaction(txid)
        XCTAssertNotNil(confirmed?.height, "confirmed once its block is applied")
        let balance = await receiver.balance()
        XCTAssertEqual(balance, WalletBalance(confirmed: amount, unconfirmed: 0, immature: 0))
    }
}
