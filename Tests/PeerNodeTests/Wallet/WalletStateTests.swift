import Bitcoin
@testable import PeerNode
import XCTest

/// The wallet's state machine without I/O: blocks applied and undone, mempool
/// transactions, replacements, conflicts, maturity and reservations.
final class WalletStateTests: XCTestCase {
    private var keys = try! WalletKeys(seed: [UInt8](repeating: 0x01, count: 32), network: .regtest)
    private let elsewhere = Script(bytes: [0x51, 0x20] + [UInt8](repeating: 0x99, count: 32))

    private func ours(_ chain: KeyChain, _ index: UInt32) -> Script {
        keys.script(for: WalletKeyPath(chain: chain, index: index))!
    }

    /// A block on `previous` (not mined: the state never checks proof of work) with a
    /// coinbase paying `coinbaseTo` and then `transactions`.
    private func block(height: Int, previous: BlockHash, coinbaseTo script: Script? = nil, value: Int64 = 5_000_000_000,
                       _ transactions: [Transaction] = []) -> Block {
        let coinbase = Transaction(inputs: [TransactionInput(previousOutput: .null,
                                                             scriptSig: Script([.pushNumber(Int64(height)), .zero]))],
                                   outputs: [TransactionOutput(value: value, scriptPubKey: script ?? elsewhere)])
        var block = Block(header: BlockHeader(version: 0x2000_0000, previousBlockHash: previous,
                                              merkleRoot: [UInt8](repeating: 0, count: 32), time: UInt32(height), bits: 0x207f_ffff,
                                              nonce: 0),
                          transactions: [coinbase] + transactions)
        block.header.merkleRoot = block.computedMerkleRoot.root
        return block
    }

    private func spend(_ outPoints: [OutPoint], to outputs: [(Script, Int64)]) -> Transaction {
        Transaction(inputs: outPoints.map { TransactionInput(previousOutput: $0, sequence: TransactionInput.replaceableSequence) },
                    outputs: outputs.map { TransactionOutput(value: $1, scriptPubKey: $0) })
    }

    private func apply(_ block: Block, to state: inout WalletState) {
        state.applyBlock(block, hash: block.hash, height: state.nextHeight, keys: &keys)
    }

    /// A funding transaction from outside paying `value` to receive key 0, in block 0.
    private func funded(_ value: Int64 = 1_000_000) -> (WalletState, OutPoint) {
        var state = WalletState(birthdayHeight: 0)
        let foreign = OutPoint(txid: try! TransactionID(bytes: [UInt8](repeating: 0xaa, count: 32)), index: 0)
        let funding = spend([foreign], to: [(ours(.receive, 0), value)])
        apply(block(height: 0, previous: .zero, [funding]), to: &state)
        return (state, OutPoint(txid: funding.txid, index: 0))
    }

    func testCoinbaseCountsAsImmatureUntilOneHundredConfirmations() {
        var state = WalletState(birthdayHeight: 0)
        apply(block(height: 0, previous: .zero, coinbaseTo: ours(.receive, 0)), to: &state)
        for height in 1...98 { apply(block(height: height, previous: state.tip!.hash), to: &state) }
        XCTAssertEqual(state.balance, WalletBalance(immature: 5_000_000_000), "99 confirmations")
        XCTAssertTrue(state.spendableCoins(minimumConfirmations: 1).isEmpty)
        apply(block(height: 99, previous: state.tip!.hash), to: &state)
        XCTAssertEqual(state.balance, WalletBalance(confirmed: 5_000_000_000), "100 confirmations")
        XCTAssertEqual(state.spendableCoins(minimumConfirmations: 1).count, 1)
    }

    func testUndoingACoinbaseBlockRemovesItsCoin() {
        var state = WalletState(birthdayHeight: 0)
        apply(block(height: 0, previous: .zero), to: &state)
        apply(block(height: 1, previous: state.tip!.hash, coinbaseTo: ours(.receive, 0)), to: &state)
        XCTAssertEqual(state.balance.immature, 5_000_000_000)
        XCTAssertTrue(state.undoTip())
        XCTAssertEqual(state.balance, WalletBalance())
        XCTAssertTrue(state.coins.isEmpty)
        XCTAssertTrue(state.pending.isEmpty, "a coinbase never returns to the mempool")
        XCTAssertEqual(state.tip?.height, 0)
    }

    func testSpendSeenInTheMempoolThenConfirmedThenUndone() {
        var (state, coin) = funded()
        XCTAssertEqual(state.balance, WalletBalance(confirmed: 1_000_000))
        let payment = spend([coin], to: [(elsewhere, 600_000), (ours(.change, 0), 390_000)])
        XCTAssertTrue(state.applyMempoolTransaction(payment, keys: &keys))
        XCTAssertEqual(state.balance, WalletBalance(unconfirmed: 390_000))
        XCTAssertEqual(state.pending[payment.txid]?.fee, 10_000)

        apply(block(height: 1, previous: state.tip!.hash, [payment]), to: &state)
        XCTAssertEqual(state.balance, WalletBalance(confirmed: 390_000))
        XCTAssertTrue(state.pending.isEmpty)
        XCTAssertEqual(state.confirmed[payment.txid]?.height, 1)

        XCTAssertTrue(state.undoTip())
        XCTAssertEqual(state.balance, WalletBalance(unconfirmed: 390_000), "the payment is unconfirmed again")
        XCTAssertEqual(state.spenders[coin], payment.txid)
        XCTAssertEqual(state.coins[coin]?.height, 0)
        XCTAssertNil(state.confirmed[payment.txid])

        // Dropped from the mempool after the reorg: the coin is spendable again.
        state.dropPending(payment.txid)
        XCTAssertEqual(state.balance, WalletBalance(confirmed: 1_000_000))
        XCTAssertEqual(state.spendableCoins(minimumConfirmations: 1).map(\.outPoint), [coin])
    }

    func testAReplacementDropsTheOriginalAndItsChild() {
        var (state, coin) = funded()
        let original = spend([coin], to: [(elsewhere, 600_000), (ours(.change, 0), 399_000)])
        let child = spend([OutPoint(txid: original.txid, index: 1)], to: [(ours(.change, 1), 398_000)])
        state.applyMempoolTransaction(original, keys: &keys)
        state.applyMempoolTransaction(child, keys: &keys)
        XCTAssertEqual(state.balance, WalletBalance(unconfirmed: 398_000))

        let replacement = spend([coin], to: [(elsewhere, 600_000), (ours(.change, 2), 395_000)])
        XCTAssertTrue(state.applyMempoolTransaction(replacement, keys: &keys))
        XCTAssertEqual(Set(state.pending.keys), [replacement.txid])
        XCTAssertEqual(state.balance, WalletBalance(unconfirmed: 395_000))
        XCTAssertNil(state.coins[OutPoint(txid: original.txid, index: 1)])
    }

    func testABlockSpendingACoinDropsTheConflictingPendingSpend() {
        var (state, coin) = funded()
        let pending = spend([coin], to: [(elsewhere, 600_000), (ours(.change, 0), 399_000)])
        state.applyMempoolTransaction(pending, keys: &keys)
        state.reserve([coin], for: pending.txid)
        let winner = spend([coin], to: [(elsewhere, 990_000)])
        apply(block(height: 1, previous: state.tip!.hash, [winner]), to: &state)
        XCTAssertTrue(state.pending.isEmpty)
        XCTAssertEqual(state.balance, WalletBalance())
        XCTAssertTrue(state.reservations.isEmpty)
        XCTAssertEqual(state.confirmed[winner.txid]?.fee, 10_000, "every input was ours, so the fee is known")
    }

    func testReceivedPaymentsAreUnconfirmedThenConfirmed() {
        var state = WalletState(birthdayHeight: 0)
        apply(block(height: 0, previous: .zero), to: &state)
        let foreign = OutPoint(txid: try! TransactionID(bytes: [UInt8](repeating: 0xbb, count: 32)), index: 3)
        let receipt = spend([foreign], to: [(elsewhere, 1_000), (ours(.receive, 4), 70_000)])
        XCTAssertTrue(state.applyMempoolTransaction(receipt, keys: &keys))
        XCTAssertFalse(state.applyMempoolTransaction(spend([foreign], to: [(elsewhere, 5)]), keys: &keys), "not ours")
        XCTAssertEqual(state.balance.unconfirmed, 70_000)
        XCTAssertNil(state.pending[receipt.txid]?.fee, "a foreign input's value is unknown")
        XCTAssertTrue(state.spendableCoins(minimumConfirmations: 0).isEmpty, "others' unconfirmed coins are never spent")
        apply(block(height: 1, previous: state.tip!.hash, [receipt]), to: &state)
        XCTAssertEqual(state.balance, WalletBalance(confirmed: 70_000))
    }

    func testOwnUnconfirmedChangeIsSpendableOnlyWithZeroConfirmations() {
        var (state, coin) = funded()
        let payment = spend([coin], to: [(elsewhere, 600_000), (ours(.change, 0), 390_000)])
        state.applyMempoolTransaction(payment, keys: &keys)
        XCTAssertTrue(state.spendableCoins(minimumConfirmations: 1).isEmpty)
        XCTAssertEqual(state.spendableCoins(minimumConfirmations: 0).map(\.outPoint), [OutPoint(txid: payment.txid, index: 1)])
    }

    func testReservedCoinsAreNotSpendableUntilReleased() throws {
        var (state, coin) = funded()
        let txid = try TransactionID(bytes: [UInt8](repeating: 0xcc, count: 32))
        state.reserve([coin], for: txid)
        XCTAssertTrue(state.spendableCoins(minimumConfirmations: 1).isEmpty)
        XCTAssertEqual(state.balance.confirmed, 1_000_000, "a reservation is not a spend")
        state.releaseReservations(of: txid)
        XCTAssertEqual(state.spendableCoins(minimumConfirmations: 1).count, 1)
    }

    func testUndoDataIsKeptOnlyForTheLastBlocks() {
        var state = WalletState(birthdayHeight: 10, undoDepth: 3)
        apply(block(height: 10, previous: .zero), to: &state)
        for height in 11...15 { apply(block(height: height, previous: state.tip!.hash), to: &state) }
        for _ in 0..<3 { XCTAssertTrue(state.undoTip()) }
        XCTAssertFalse(state.undoTip(), "a reorg deeper than the undo depth needs a rescan")
        XCTAssertEqual(state.tip?.height, 12)
        XCTAssertNotNil(state.blockHash(atHeight: 10))
        XCTAssertNil(state.blockHash(atHeight: 13))
    }
}
