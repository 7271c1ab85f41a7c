import Bitcoin
@testable import PeerNode
import Regtest
import XCTest

/// Audit M-6: addresses handed out must stay watched across a restart, and a peer that
/// keeps asking for an address must not push the wallet's coins past its gap limit.
final class WalletAddressReuseTests: XCTestCase {
    private var fixture: WalletFixture!

    override func setUpWithError() throws {
        fixture = try WalletFixture()
    }

    override func tearDown() {
        fixture?.close()
        fixture = nil
    }

    func testAnAddressHandedOutPastTheGapIsWatchedAfterARestart() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        let first = try fixture.wallet()
        try await first.attachMarkStore(store)
        var last: WalletAddress?
        for _ in 0..<(WalletKeys.defaultGapLimit + 10) { last = await first.newAddress() }
        let paid = try XCTUnwrap(last)
        try fixture.chain.mine(1, to: paid.scriptPubKey)

        let restarted = try fixture.wallet()
        try await restarted.attachMarkStore(store)
        try await restarted.sync()
        let seen = await restarted.balance().total
        XCTAssertGreaterThan(seen, 0, "the coin paid to index \(paid.path.index) is found after the restart")
        // The restarted wallet hands out nothing it handed out before.
        let next = await restarted.newAddress()
        XCTAssertGreaterThan(next.path.index, paid.path.index)

        // Why the mark exists: without it, the coin is past the window.
        let forgetful = try fixture.wallet()
        try await forgetful.sync()
        let unseen = await forgetful.balance().total
        XCTAssertEqual(unseen, 0)
    }

    func testAPeerAskingAgainGetsTheSameAddressUntilItIsPaid() async throws {
        let wallet = try fixture.wallet()
        var asked: [WalletAddress] = []
        for _ in 0..<1_000 { asked.append(await wallet.reusableAddress(for: "peer-a")) }
        XCTAssertEqual(Set(asked).count, Wallet.unpaidPerLabel, "a thousand asks, five addresses")
        XCTAssertEqual(Set(asked.prefix(Wallet.unpaidPerLabel)).count, Wallet.unpaidPerLabel,
                       "concurrent payments get distinct addresses")
        let first = asked[0]
        XCTAssertEqual(asked[Wallet.unpaidPerLabel], first, "then the oldest unpaid one again")
        let other = await wallet.reusableAddress(for: "peer-b")
        XCTAssertFalse(asked.contains(other))
        let next = await wallet.newAddress()
        XCTAssertLessThanOrEqual(Int(next.path.index), Wallet.unpaidPerLabel + 1, "the window did not move")

        try fixture.chain.mine(1, to: first.scriptPubKey)
        try await wallet.sync()
        var after: Set<WalletAddress> = []
        for _ in 0..<20 { after.insert(await wallet.reusableAddress(for: "peer-a")) }
        XCTAssertFalse(after.contains(first), "a paid address is not handed out again")
    }

    /// Issue 22: a flood of ever-new askers (one handshake each) must not derive keys
    /// without end. Once the oldest askers are forgotten, their unpaid addresses go to the
    /// newcomers, so the keys handed out stay bounded by the askers remembered.
    func testAFloodOfNewAskersStopsDerivingKeysOnceOldAskersAreForgotten() async throws {
        let wallet = try fixture.wallet()
        await wallet.limitRememberedAskers(to: 8)
        var handed: Set<WalletAddress> = []
        for asker in 0..<200 {
            var own: Set<WalletAddress> = []
            for _ in 0..<Wallet.unpaidPerLabel { own.insert(await wallet.reusableAddress(for: "asker-\(asker)")) }
            XCTAssertEqual(own.count, Wallet.unpaidPerLabel, "each asker still gets distinct addresses")
            handed.formUnion(own)
        }
        let bound = 9 * Wallet.unpaidPerLabel
        XCTAssertLessThanOrEqual(handed.count, bound, "200 askers, at most \(bound) keys")
        let next = await wallet.newAddress()
        XCTAssertLessThanOrEqual(Int(next.path.index), bound, "the window did not move past the remembered askers'")

        // A recycled address that gets paid is never handed out again.
        let paid = try XCTUnwrap(handed.first)
        try fixture.chain.mine(1, to: paid.scriptPubKey)
        try await wallet.sync()
        for asker in 200..<260 {
            for _ in 0..<Wallet.unpaidPerLabel {
                let address = await wallet.reusableAddress(for: "asker-\(asker)")
                XCTAssertNotEqual(address, paid)
            }
        }
    }
}
