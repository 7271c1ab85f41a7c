import Bitcoin
import Regtest
import TestSupport
import XCTest

/// Core v31's cluster limits (`-limitclustercount=64`, `-limitclustersize=101` kvB, the
/// size summed in weight units, 404,000): a transaction that would make its cluster larger
/// is refused with `too-large-cluster` (code -26, no details). The hub must be as strict,
/// or a provider chaining locks on unconfirmed change would pass on regtest and fail on
/// mainnet.
final class ClusterLimitTests: XCTestCase {
    /// A chain of `count` unconfirmed transactions from `coin`, each paying `fee`; returns
    /// the last one's single output.
    private func chain(_ count: Int, from coin: (outpoint: OutPoint, value: Int64), on chain: RegtestChain,
                       wallet: TestWallet, fee: Int64 = 1_000) throws -> (outpoint: OutPoint, value: Int64) {
        var tip = coin
        for _ in 0..<count {
            let spend = try wallet.spend(tip.outpoint, value: tip.value, fee: fee)
            try chain.submit(spend)
            tip = (OutPoint(txid: spend.txid, index: 0), tip.value - fee)
        }
        return tip
    }

    func testTheSixtyFourthTransactionOfAChainIsAcceptedAndTheSixtyFifthRefused() throws {
        let regtest = try makeRegtestChain()
        defer { regtest.close() }
        let wallet = TestWallet()
        try regtest.mine(101, to: wallet.script)
        let tip = try chain(64, from: try coinbase(of: regtest, atHeight: 1), on: regtest, wallet: wallet)
        XCTAssertEqual(regtest.mempoolEntries().count, 64)

        let sixtyFifth = try wallet.spend(tip.outpoint, value: tip.value, fee: 1_000)
        let refused = try XCTUnwrap(rejection { try regtest.submit(sixtyFifth) })
        XCTAssertEqual(refused.reason, "too-large-cluster")
        XCTAssertNil(refused.details)
        XCTAssertEqual(refused.sendRawTransactionCode, -26)
        XCTAssertEqual(refused.sendRawTransactionMessage, "too-large-cluster")
        XCTAssertEqual(regtest.mempoolEntries().count, 64)

        // A block empties the mempool; the same transaction is then the first of a new cluster.
        try regtest.mine(1, to: wallet.script)
        XCTAssertEqual(try regtest.submit(sixtyFifth), sixtyFifth.txid)
    }

    /// Two clusters joined by one transaction count as one: 40 + 24 + the joining one is 65.
    func testATransactionJoiningTwoClustersCountsBoth() throws {
        let regtest = try makeRegtestChain()
        defer { regtest.close() }
        let wallet = TestWallet()
        try regtest.mine(102, to: wallet.script)
        let left = try chain(40, from: try coinbase(of: regtest, atHeight: 1), on: regtest, wallet: wallet)
        let right = try chain(24, from: try coinbase(of: regtest, atHeight: 2), on: regtest, wallet: wallet)
        let join = try wallet.spend([left, right], to: [TransactionOutput(value: left.value + right.value - 2_000,
                                                                          scriptPubKey: wallet.script)])
        XCTAssertEqual(try XCTUnwrap(rejection { try regtest.submit(join) }).reason, "too-large-cluster")

        // One transaction fewer on the right: 40 + 23 + 1 is exactly 64.
        let shorter = try makeRegtestChain()
        defer { shorter.close() }
        try shorter.mine(102, to: wallet.script)
        let left2 = try chain(40, from: try coinbase(of: shorter, atHeight: 1), on: shorter, wallet: wallet)
        let right2 = try chain(23, from: try coinbase(of: shorter, atHeight: 2), on: shorter, wallet: wallet)
        let join2 = try wallet.spend([left2, right2], to: [TransactionOutput(value: left2.value + right2.value - 2_000,
                                                                             scriptPubKey: wallet.script)])
        XCTAssertEqual(try shorter.submit(join2), join2.txid)
    }

    /// The size limit is 404,000 weight units summed over the cluster (not per-transaction
    /// vbytes rounded up): a child that brings the sum to at most 404,000 is accepted, one
    /// that passes it is refused.
    func testTheClusterWeightLimitIs404000() throws {
        let regtest = try makeRegtestChain()
        defer { regtest.close() }
        let wallet = TestWallet()
        try regtest.mine(101, to: wallet.script)
        let coin = try coinbase(of: regtest, atHeight: 1)
        // A parent near the standard weight limit: a 95,000-byte OP_RETURN.
        let parent = try wallet.spend([coin], to: [TransactionOutput(value: coin.value - 400_000, scriptPubKey: wallet.script),
                                                   Self.dataOutput(95_000)])
        try regtest.submit(parent)
        let spendable = (outpoint: OutPoint(txid: parent.txid, index: 0), value: coin.value - 400_000)
        func child(data: Int) throws -> Transaction {
            try wallet.spend([spendable], to: [TransactionOutput(value: spendable.value - 40_000, scriptPubKey: wallet.script),
                                              Self.dataOutput(data)])
        }
        // Find the largest child that keeps the sum at or under the limit (the signature's
        // length moves the weight by a unit or two, so search).
        var length = (404_000 - parent.weight - (try child(data: 0)).weight) / 4
        var fitting = try child(data: length)
        while parent.weight + fitting.weight > 404_000 {
            length -= 1
            fitting = try child(data: length)
        }
        var over = try child(data: length + 1)
        while parent.weight + over.weight <= 404_000 {
            length += 1
            fitting = over
            over = try child(data: length + 1)
        }
        XCTAssertGreaterThan(parent.weight + fitting.weight, 404_000 - 8, "the fitting child is at the edge")
        XCTAssertEqual(try XCTUnwrap(rejection { try regtest.submit(over) }).reason, "too-large-cluster")
        XCTAssertEqual(try regtest.submit(fitting), fitting.txid)
    }

    private static func dataOutput(_ length: Int) -> TransactionOutput {
        TransactionOutput(value: 0, scriptPubKey: Script([.return, .pushData([UInt8](repeating: 0x5a, count: length))]))
    }
}
