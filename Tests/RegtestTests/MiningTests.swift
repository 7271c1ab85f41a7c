import Bitcoin
import Regtest
import TestSupport
import XCTest

/// Blocks the hub assembles are accepted by Bitcoin Core's kernel, carry our transactions,
/// and pay the regtest subsidy schedule.
final class MiningTests: XCTestCase {
    func testMinedBlocksAreAcceptedByTheKernelAndMatureCoinbaseIsSpendable() throws {
        let chain = try makeRegtestChain()
        defer { chain.close() }
        let wallet = TestWallet()
        XCTAssertEqual(chain.height, 0)
        XCTAssertEqual(chain.tipHash.hex, "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206")

        let first = try chain.mine(50, to: wallet.script)
        XCTAssertEqual(first.count, 50)
        try assertKernelAgrees(chain)
        try chain.mine(51, to: wallet.script)
        try assertKernelAgrees(chain)
        XCTAssertEqual(chain.height, 101)

        // Block 1's coinbase is mature for the block at height 102 (depth 101 ≥ 100).
        let coin = try coinbase(of: chain, atHeight: 1)
        XCTAssertEqual(coin.value, 50 * Money.coin)
        let spend = try wallet.spend(coin.outpoint, value: coin.value, fee: 2_000)
        XCTAssertEqual(try chain.submit(spend), spend.txid)
        XCTAssertEqual(chain.mempoolEntries().map(\.entry.txid), [spend.txid])
        XCTAssertNil(chain.unspentOutput(coin.outpoint), "spent in the mempool")
        XCTAssertNotNil(chain.unspentOutput(coin.outpoint, includeMempool: false))

        let hashes = try chain.mine(1, to: wallet.script)
        try assertKernelAgrees(chain)
        let mined = try XCTUnwrap(chain.block(hashes[0]))
        XCTAssertEqual(mined.block.transactions.map(\.txid), [mined.block.transactions[0].txid, spend.txid])
        XCTAssertEqual(mined.block.transactions[0].outputs[0].value, 50 * Money.coin + 2_000, "subsidy plus fee")
        XCTAssertTrue(mined.block.hasValidWitnessCommitment)
        XCTAssertGreaterThan(Int64(mined.block.header.time), try XCTUnwrap(chain.block(atHeight: 101)).medianTimePast)
        XCTAssertEqual(mined.spentCoins?[1].map(\.output.value), [coin.value])
        XCTAssertTrue(chain.mempoolEntries().isEmpty)

        guard case .block(let hash, let height, let confirmations, _) = try XCTUnwrap(chain.transaction(spend.txid)).location else {
            return XCTFail("the spend is not confirmed")
        }
        XCTAssertEqual(hash, hashes[0])
        XCTAssertEqual(height, 102)
        XCTAssertEqual(confirmations, 1)
        let output = try XCTUnwrap(chain.unspentOutput(OutPoint(txid: spend.txid, index: 0)))
        XCTAssertEqual(output.confirmations, 1)
        XCTAssertFalse(output.isCoinbase)
        XCTAssertNil(chain.unspentOutput(coin.outpoint))
    }

    func testTaprootKeyPathSpendIsMined() throws {
        let chain = try makeRegtestChain()
        defer { chain.close() }
        let key = try PrivateKey([UInt8](repeating: 0x24, count: 32))
        let outputKey = try key.xOnlyPublicKey.tapTweaked(merkleRoot: nil).key
        let taprootScript = Address.p2tr(outputKey: outputKey.bytes).script
        try chain.mine(101, to: taprootScript)
        let coin = try coinbase(of: chain, atHeight: 1)
        let spent = TransactionOutput(value: coin.value, scriptPubKey: taprootScript)
        var spend = Transaction(version: 2, inputs: [TransactionInput(previousOutput: coin.outpoint)],
                                outputs: [TransactionOutput(value: coin.value - 1_000, scriptPubKey: TestWallet().script)])
        let digest = try TaprootSighash(transaction: spend, spentOutputs: [spent]).hash(inputIndex: 0)
        let signature = try SchnorrSignature.sign(message: digest, with: try key.tapTweaked(merkleRoot: nil))
        spend.inputs[0].witness = Witness([signature.bytes])
        try chain.submit(spend)
        try chain.mine(1, to: taprootScript)
        try assertKernelAgrees(chain)
        XCTAssertEqual(try XCTUnwrap(chain.block(atHeight: 102)).block.transactions.last?.txid, spend.txid)
    }

    /// Regtest halves the subsidy every 150 blocks; the kernel would refuse a coinbase that
    /// claimed more.
    func testSubsidyHalvesAtHeight150() throws {
        let chain = try makeRegtestChain()
        defer { chain.close() }
        try chain.mine(151, to: TestWallet().script)
        try assertKernelAgrees(chain)
        XCTAssertEqual(try coinbase(of: chain, atHeight: 149).value, 50 * Money.coin)
        XCTAssertEqual(try coinbase(of: chain, atHeight: 150).value, 25 * Money.coin)
        XCTAssertEqual(RegtestParameters.subsidy(atHeight: 300), 1_250_000_000)
    }

    /// A child paying for its parent is mined with it, parent first.
    func testPackagesAreMinedParentsFirst() throws {
        let chain = try makeRegtestChain()
        defer { chain.close() }
        let wallet = TestWallet()
        try chain.mine(102, to: wallet.script)
        let low = try coinbase(of: chain, atHeight: 1)
        let other = try coinbase(of: chain, atHeight: 2)
        let parent = try wallet.spend(low.outpoint, value: low.value, fee: 200)
        let child = try wallet.spend(OutPoint(txid: parent.txid, index: 0), value: low.value - 200, fee: 50_000)
        let unrelated = try wallet.spend(other.outpoint, value: other.value, fee: 10_000)
        try chain.submit(parent)
        try chain.submit(child)
        try chain.submit(unrelated)
        let info = try XCTUnwrap(chain.mempoolEntry(child.txid))
        XCTAssertEqual(info.parents, [parent.txid])
        XCTAssertEqual(info.ancestorCount, 2)
        XCTAssertEqual(info.ancestorFees, 50_200)
        XCTAssertEqual(chain.mempoolEntry(parent.txid)?.children, [child.txid])

        let hash = try XCTUnwrap(chain.mine(1, to: wallet.script).first)
        try assertKernelAgrees(chain)
        // The parent+child package pays more per vbyte than the unrelated transaction.
        XCTAssertEqual(try XCTUnwrap(chain.block(hash)).block.transactions.dropFirst().map(\.txid),
                       [parent.txid, child.txid, unrelated.txid])
    }
}
