import Bitcoin
import HTLC
@testable import PeerNode
import Regtest
import XCTest

/// The wallet against a real chain (the hub's, validated by Bitcoin Core's kernel): coinbase
/// funds, sending with change, a depth-2 reorg, and a failed broadcast. Every transaction
/// the wallet broadcasts is script-verified input by input by the kernel first (see
/// `RegtestChainBackend`).
final class WalletChainTests: XCTestCase {
    private let coin: Int64 = 5_000_000_000

    func testSeesMaturedCoinbaseSendsAndReceivesChange() async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        let wallet = try fixture.wallet()
        let address = await wallet.newAddress()
        try fixture.chain.mine(101, to: address.scriptPubKey)
        let tip = try await wallet.sync()
        XCTAssertEqual(tip?.height, 101)
        // At height 101 the coinbases of blocks 1 and 2 have 100 confirmations or more.
        var balance = await wallet.balance()
        XCTAssertEqual(balance, WalletBalance(confirmed: 2 * coin, unconfirmed: 0, immature: 99 * coin))

        let rate = WalletFixture.rate(2)
        let sent = try await wallet.send(to: WalletFixture.elsewhere.encoded(for: .regtest), amount: 100_000_000, feeRate: rate)
        let fee = try XCTUnwrap(sent.fee)
        XCTAssertEqual(fee, rate.fee(forVirtualSize: sent.virtualSize), "fee = rate × signed vsize")
        XCTAssertEqual(sent.transaction.inputs.count, 1)
        XCTAssertEqual(sent.transaction.outputs.count, 2)
        XCTAssertEqual(sent.transaction.outputs[0], TransactionOutput(value: 100_000_000, scriptPubKey: WalletFixture.elsewhere.script))
        let change = coin - 100_000_000 - fee
        XCTAssertEqual(sent.transaction.outputs[1].value, change)
        XCTAssertEqual(sent.transaction.lockTime, 101, "anti fee sniping: the tip height")
        XCTAssertEqual(fixture.backend.verifiedTransactions, [sent.txid])
        XCTAssertEqual(try fixture.mempoolEntry(sent.txid).entry.fee, fee)

        balance = await wallet.balance()
        XCTAssertEqual(balance, WalletBalance(confirmed: coin, unconfirmed: change, immature: 99 * coin))
        try await wallet.sync()
        let afterSync = await wallet.balance()
        XCTAssertEqual(afterSync, balance, "the mempool pass agrees with what the broadcast recorded")

        try fixture.mineElsewhere(1)
        try await wallet.sync()
        // The change confirmed and block 3's coinbase matured.
        balance = await wallet.balance()
        XCTAssertEqual(balance, WalletBalance(confirmed: 2 * coin + change, unconfirmed: 0, immature: 98 * coin))
        let confirmedHeight = await wallet.transaction(sent.txid)?.height
        XCTAssertEqual(confirmedHeight, 102)
        let reserved = await wallet.reservedOutPoints()
        XCTAssertTrue(reserved.isEmpty, "a confirmed spend releases its reservation")

        // A payment to a new address of its own: the receipt shows unconfirmed, then confirmed.
        let receive = await wallet.newAddress()
        XCTAssertNotEqual(receive, address)
        let toSelf = try await wallet.send(to: receive.address, amount: 7_000_000, feeRate: rate)
        try await wallet.sync()
        let selfFee = try XCTUnwrap(toSelf.fee)
        balance = await wallet.balance()
        // Largest first: a 50 BTC coinbase pays, the earlier change stays confirmed.
        XCTAssertEqual(toSelf.spentOutputs?.map(\.value), [coin])
        XCTAssertEqual(balance.unconfirmed, (coin - 7_000_000 - selfFee) + 7_000_000)
        XCTAssertEqual(balance.confirmed, coin + change)
        XCTAssertEqual(fixture.backend.verifiedTransactions, [sent.txid, toSelf.txid])
    }

    func testReorgOfDepthTwoThatRemovesTheWalletsTransaction() async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        let wallet = try await matured(fixture)
        let sent = try await wallet.send(to: WalletFixture.elsewhere, amount: 100_000_000, feeRate: WalletFixture.rate(2))
        let change = coin - 100_000_000 - (sent.fee ?? 0)
        try fixture.mineElsewhere(2)
        try await wallet.sync()
        // Tip 103: blocks 1...4 matured, one of them spent; the change is confirmed at depth 2.
        var balance = await wallet.balance()
        XCTAssertEqual(balance, WalletBalance(confirmed: 3 * coin + change, unconfirmed: 0, immature: 97 * coin))

        // Invalidate the block holding the payment: the chain is back at 101, the payment
        // back in the mempool.
        try fixture.chain.invalidateBlock(try XCTUnwrap(fixture.chain.blockHash(atHeight: 102)))
        XCTAssertNotNil(fixture.chain.mempoolEntry(sent.txid))
        try await wallet.sync()
        balance = await wallet.balance()
        XCTAssertEqual(balance, WalletBalance(confirmed: coin, unconfirmed: change, immature: 99 * coin))
        let unconfirmedAgain = await wallet.transaction(sent.txid)
        XCTAssertNotNil(unconfirmedAgain)
        XCTAssertNil(unconfirmedAgain?.height)

        // A conflicting spend of the same coin (as another holder of the seed could make)
        // replaces it, and a longer branch confirms the conflict: the payment is gone.
        var keys = try WalletKeys(seed: WalletFixture.seed(0x01), network: .regtest)
        _ = keys.nextAddress(.receive)
        let spentCoin = try XCTUnwrap(sent.spentOutputs?.first)
        var conflict = Transaction(inputs: [TransactionInput(previousOutput: sent.transaction.inputs[0].previousOutput,
                                                             sequence: TransactionInput.replaceableSequence)],
                                   outputs: [TransactionOutput(value: spentCoin.value - 50_000,
                                                               scriptPubKey: WalletFixture.elsewhere.script)])
        conflict = try WalletSigner.sign(conflict, spentOutputs: [spentCoin], keys: keys)
        try fixture.chain.submit(conflict)
        try fixture.mineElsewhere(3)
        XCTAssertEqual(fixture.chain.height, 104)
        XCTAssertNil(fixture.chain.transaction(sent.txid))
        try await wallet.sync()

        // Tip 104: blocks 1...5 matured, one spent by the conflict; no change anywhere.
        balance = await wallet.balance()
        XCTAssertEqual(balance, WalletBalance(confirmed: 4 * coin, unconfirmed: 0, immature: 96 * coin))
        let removed = await wallet.transaction(sent.txid)
        XCTAssertNil(removed)
        let conflictRecord = await wallet.transaction(conflict.txid)
        XCTAssertEqual(conflictRecord?.height, 102)
        let pending = await wallet.pendingTransactions()
        XCTAssertTrue(pending.isEmpty)
    }

    func testReorgOfDepthTwoThatMinesTheTransactionAgain() async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        let wallet = try await matured(fixture)
        let sent = try await wallet.send(to: WalletFixture.elsewhere, amount: 250_000_000, feeRate: WalletFixture.rate(3))
        let change = coin - 250_000_000 - (sent.fee ?? 0)
        try fixture.mineElsewhere(2)
        try await wallet.sync()
        let firstBlock = await wallet.transaction(sent.txid)?.height
        XCTAssertEqual(firstBlock, 102)

        // A longer branch from 101 holding the payment (returned to the mempool) one block later.
        try fixture.chain.invalidateBlock(try XCTUnwrap(fixture.chain.blockHash(atHeight: 102)))
        try fixture.mineElsewhere(1)
        XCTAssertNil(fixture.chain.mempoolEntry(sent.txid))
        try fixture.mineElsewhere(2)
        XCTAssertEqual(fixture.chain.height, 104)
        try await assertSyncedAt104WithThePaymentAt102(wallet, fixture, sent: sent, change: change)
    }

    func testAReorgDeeperThanTheUndoDataRescansFromTheBirthday() async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        let wallet = try await matured(fixture, undoDepth: 1)
        let sent = try await wallet.send(to: WalletFixture.elsewhere, amount: 250_000_000, feeRate: WalletFixture.rate(3))
        let change = coin - 250_000_000 - (sent.fee ?? 0)
        try fixture.mineElsewhere(2)
        try await wallet.sync()
        // Depth 2 with undo data for 1 block: the wallet cannot rewind and starts over.
        try fixture.chain.invalidateBlock(try XCTUnwrap(fixture.chain.blockHash(atHeight: 102)))
        try fixture.mineElsewhere(3)
        XCTAssertEqual(fixture.chain.height, 104)
        try await assertSyncedAt104WithThePaymentAt102(wallet, fixture, sent: sent, change: change)
    }

    func testCoinsBeforeTheBirthdayAreNotSeen() async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        let early = try fixture.wallet()
        try fixture.chain.mine(101, to: await early.newAddress().scriptPubKey)
        let late = try fixture.wallet(birthday: 50)
        try await late.sync()
        // Blocks 50...101 only: none of them mature at tip 101.
        let balance = await late.balance()
        XCTAssertEqual(balance, WalletBalance(confirmed: 0, unconfirmed: 0, immature: 52 * coin))
        let nextAddress = await late.newAddress()
        XCTAssertEqual(nextAddress.path.index, 1, "index 0 is seen used, so it is not handed out again")
    }

    /// A broadcast with no answer may have gone out: its coins stay reserved until the next
    /// sync, which does not find it and gives them back.
    func testAFailedBroadcastReleasesItsCoins() async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        let wallet = try await matured(fixture)
        fixture.backend.failNextBroadcasts(1)
        await assertThrows(.backend(.unreachable(url: "in-process hub", reason: "broadcast failure injected by the test"))) {
            try await wallet.send(to: WalletFixture.elsewhere, amount: 100_000_000, feeRate: WalletFixture.rate(2))
        }
        let held = await wallet.reservedOutPoints()
        XCTAssertFalse(held.isEmpty, "unanswered: it may have gone out")
        try await wallet.sync()
        let reserved = await wallet.reservedOutPoints()
        XCTAssertTrue(reserved.isEmpty)
        let balance = await wallet.balance()
        XCTAssertEqual(balance.confirmed, 2 * coin)
        // Both coins are selectable again: two payments that each need a whole coin go out.
        let first = try await wallet.send(to: WalletFixture.elsewhere, amount: 4_000_000_000, feeRate: WalletFixture.rate(2))
        let second = try await wallet.send(to: WalletFixture.elsewhere, amount: 4_000_000_000, feeRate: WalletFixture.rate(2))
        XCTAssertNotEqual(first.transaction.inputs[0].previousOutput, second.transaction.inputs[0].previousOutput)
        let payment = TransactionOutput(value: 100_000, scriptPubKey: WalletFixture.elsewhere.script)
        let oneInputFee = WalletFixture.rate(2).fee(forVirtualSize: TaprootSpendSize.virtualSize(inputCount: 1, outputs: [payment]))
        await assertThrows(.insufficientFunds(needed: 100_000 + oneInputFee, available: 0)) {
            try await wallet.send(to: WalletFixture.elsewhere, amount: 100_000, feeRate: WalletFixture.rate(2))
        }
    }

    func testAmountsBelowDustAndForeignNetworksAreRefused() async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        let wallet = try fixture.wallet()
        await assertThrows(.invalidAmount(329, reason: "below the dust threshold of 330 sat for that output")) {
            try await wallet.send(to: WalletFixture.elsewhere, amount: 329, feeRate: WalletFixture.rate(1))
        }
        await assertThrows(.invalidAmount(0, reason: "amounts are positive")) {
            try await wallet.send(to: WalletFixture.elsewhere, amount: 0, feeRate: WalletFixture.rate(1))
        }
        do {
            _ = try await wallet.send(to: WalletFixture.elsewhere.encoded(for: .mainnet), amount: 10_000, feeRate: WalletFixture.rate(1))
            XCTFail("a mainnet address was accepted on regtest")
        } catch {
            guard case .invalidDestination = error else { return XCTFail("\(error)") }
        }
    }

    /// A wallet whose first address holds the coinbases of blocks 1...101, synced at 101.
    private func matured(_ fixture: WalletFixture, undoDepth: Int? = nil) async throws -> Wallet {
        let wallet = try undoDepth.map { try fixture.wallet(undoDepth: $0) } ?? fixture.wallet()
        try fixture.chain.mine(101, to: await wallet.newAddress().scriptPubKey)
        try await wallet.sync()
        return wallet
    }

    /// After a reorg to tip 104 that confirms `sent` at 102 again: synced, blocks 1...5
    /// matured, one spent, the change confirmed.
    private func assertSyncedAt104WithThePaymentAt102(_ wallet: Wallet, _ fixture: WalletFixture, sent: WalletTransaction,
                                                      change: Int64,
                                                      file: StaticString = #filePath, line: UInt = #line) async throws {
        try await wallet.sync()
        let balance = await wallet.balance()
        XCTAssertEqual(balance, WalletBalance(confirmed: 4 * coin + change, unconfirmed: 0, immature: 96 * coin),
                       file: file, line: line)
        let height = await wallet.transaction(sent.txid)?.height
        XCTAssertEqual(height, 102, file: file, line: line)
        let tip = await wallet.syncedTip
        XCTAssertEqual(tip?.hash, fixture.chain.tipHash, file: file, line: line)
    }
}
