import Bitcoin
import Regtest
import TestSupport
import XCTest

/// invalidateblock and a longer competing branch: the kernel follows the most-work valid
/// chain, disconnected transactions return to the mempool, confirmations change.
final class ReorgTests: XCTestCase {
    func testDepthTwoReorgReturnsTheTransactionToTheMempoolAndChangesConfirmations() throws {
        let chain = try makeRegtestChain()
        defer { chain.close() }
        let wallet = TestWallet()
        let (coin, spend) = try submitCoinbaseSpend(on: chain, wallet: wallet)
        let oldBranch = try chain.mine(2, to: wallet.script) // heights 102 (with the spend) and 103
        XCTAssertEqual(confirmations(of: spend.txid, in: chain), 2)

        try chain.invalidateBlock(oldBranch[0])
        try assertKernelAgrees(chain)
        XCTAssertEqual(chain.height, 101)
        XCTAssertEqual(chain.mempoolEntries().map(\.entry.txid), [spend.txid], "back in the mempool")
        XCTAssertEqual(confirmations(of: spend.txid, in: chain), 0)
        XCTAssertEqual(try XCTUnwrap(chain.block(oldBranch[1])).confirmations, -1)
        XCTAssertTrue(try XCTUnwrap(chain.block(oldBranch[1])).isInvalidated)
        XCTAssertNotNil(chain.unspentOutput(coin.outpoint, includeMempool: false), "the coin is unspent again")

        // A longer branch confirms it again, at a new depth.
        let newBranch = try chain.mine(3, to: TestWallet(seed: 5).script)
        try assertKernelAgrees(chain)
        XCTAssertEqual(chain.height, 104)
        XCTAssertFalse(newBranch.contains(oldBranch[0]), "a new block, not the invalidated one")
        XCTAssertEqual(confirmations(of: spend.txid, in: chain), 3)
        XCTAssertTrue(chain.mempoolEntries().isEmpty)

        // Reconsidering the shorter old branch leaves the longer new one active.
        try chain.reconsiderBlock(oldBranch[0])
        try assertKernelAgrees(chain)
        XCTAssertEqual(chain.tipHash, newBranch[2])
        XCTAssertFalse(try XCTUnwrap(chain.block(oldBranch[1])).isInvalidated)
    }

    func testReconsiderRestoresTheLongerBranch() throws {
        let chain = try makeRegtestChain()
        defer { chain.close() }
        let wallet = TestWallet()
        let (_, spend) = try submitCoinbaseSpend(on: chain, wallet: wallet)
        let branch = try chain.mine(3, to: wallet.script)

        try chain.invalidateBlock(branch[1])
        XCTAssertEqual(chain.height, 102)
        XCTAssertEqual(confirmations(of: spend.txid, in: chain), 1)
        try chain.reconsiderBlock(branch[1])
        try assertKernelAgrees(chain)
        XCTAssertEqual(chain.tipHash, branch[2])
        XCTAssertEqual(confirmations(of: spend.txid, in: chain), 3)
    }

    /// A transaction that double-spends one from the disconnected block is evicted when the
    /// old block comes back.
    func testConflictsOfReturningBlocksLeaveTheMempool() throws {
        let chain = try makeRegtestChain()
        defer { chain.close() }
        let wallet = TestWallet()
        let (coin, _) = try submitCoinbaseSpend(on: chain, wallet: wallet)
        let block = try XCTUnwrap(chain.mine(1, to: wallet.script).first)
        try chain.invalidateBlock(block)
        let replacement = try wallet.spend([coin], to: [TransactionOutput(value: coin.value - 50_000,
                                                                          scriptPubKey: TestWallet(seed: 3).script)])
        try chain.submit(replacement)
        XCTAssertEqual(chain.mempoolEntries().map(\.entry.txid), [replacement.txid])
        try chain.reconsiderBlock(block)
        try assertKernelAgrees(chain)
        XCTAssertEqual(chain.tipHash, block)
        XCTAssertTrue(chain.mempoolEntries().isEmpty, "the replacement conflicts with the confirmed spend")
    }

    func testUnknownAndGenesisBlocksCannotBeInvalidated() throws {
        let chain = try makeRegtestChain()
        defer { chain.close() }
        let unknown = try BlockHash(hex: String(repeating: "00", count: 32))
        XCTAssertThrowsError(try chain.invalidateBlock(unknown)) { XCTAssertEqual($0 as? ChainError, .unknownBlock(unknown)) }
        XCTAssertThrowsError(try chain.reconsiderBlock(unknown))
        XCTAssertThrowsError(try chain.invalidateBlock(chain.tipHash))
    }

    private func confirmations(of txid: TransactionID, in chain: RegtestChain) -> Int? {
        switch chain.transaction(txid)?.location {
        case .mempool: return 0
        case .block(_, _, let confirmations, _): return confirmations
        case nil: return nil
        }
    }
}
