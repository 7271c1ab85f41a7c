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
}
