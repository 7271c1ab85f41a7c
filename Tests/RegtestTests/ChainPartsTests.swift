import Bitcoin
@testable import Regtest
import TestSupport
import XCTest

/// The pieces under the chain facade: money formatting, fee arithmetic, lock times, the
/// UTXO view's undo, fee estimates.
final class ChainPartsTests: XCTestCase {
    func testMoneyFormatsLikeCore() {
        XCTAssertEqual(Money.format(0), "0.00")
        XCTAssertEqual(Money.format(11), "0.00000011")
        XCTAssertEqual(Money.format(5_000), "0.00005")
        XCTAssertEqual(Money.format(10_000), "0.0001")
        XCTAssertEqual(Money.format(100_000_000), "1.00")
        XCTAssertEqual(Money.format(5_000_000_001), "50.00000001")
        XCTAssertEqual(Money.format(-150_000_000), "-1.50")
    }

    func testFeeAtARateRoundsUp() {
        XCTAssertEqual(Money.fee(ratePerKvB: 100, vsize: 110), 11)
        XCTAssertEqual(Money.fee(ratePerKvB: 1_000, vsize: 141), 141)
        XCTAssertEqual(Money.fee(ratePerKvB: 100, vsize: 1), 1)
        XCTAssertEqual(Money.fee(ratePerKvB: 0, vsize: 100), 0)
    }

    func testDustThresholds() {
        let p2wpkh = Address.p2wpkh(pubkeyHash: [UInt8](repeating: 1, count: 20)).script
        let p2tr = Address.p2tr(outputKey: [UInt8](repeating: 2, count: 32)).script
        let p2pkh = Address.p2pkh(pubkeyHash: [UInt8](repeating: 3, count: 20)).script
        XCTAssertEqual(OutputPolicy.dustThreshold(TransactionOutput(value: 0, scriptPubKey: p2wpkh), dustRelayFeeRate: 3_000), 294)
        XCTAssertEqual(OutputPolicy.dustThreshold(TransactionOutput(value: 0, scriptPubKey: p2tr), dustRelayFeeRate: 3_000), 330)
        XCTAssertEqual(OutputPolicy.dustThreshold(TransactionOutput(value: 0, scriptPubKey: p2pkh), dustRelayFeeRate: 3_000), 546)
        XCTAssertEqual(OutputPolicy.dustThreshold(TransactionOutput(value: 0, scriptPubKey: Script([.return])), dustRelayFeeRate: 3_000), 0)
    }

    func testFinality() {
        var transaction = Transaction(inputs: [TransactionInput(previousOutput: .null, sequence: 0xffff_fffe)],
                                      outputs: [], lockTime: 200)
        XCTAssertFalse(TransactionFinality.isFinal(transaction, height: 200, time: 0), "a lock at the block's own height")
        XCTAssertTrue(TransactionFinality.isFinal(transaction, height: 201, time: 0))
        transaction.inputs[0].sequence = .max
        XCTAssertTrue(TransactionFinality.isFinal(transaction, height: 1, time: 0), "every input opted out")
        transaction.inputs[0].sequence = 0
        transaction.lockTime = 1_700_000_000
        XCTAssertFalse(TransactionFinality.isFinal(transaction, height: 1, time: 1_700_000_000))
        XCTAssertTrue(TransactionFinality.isFinal(transaction, height: 1, time: 1_700_000_001))
    }

    func testSequenceLocksByHeightAndTime() {
        let times = (0...20).map { Int64(1_000_000 + $0 * 600) }
        var transaction = Transaction(version: 2, inputs: [TransactionInput(previousOutput: .null, sequence: 5)], outputs: [])
        // A coin at height 10 with a 5-block lock can be spent in block 15.
        XCTAssertFalse(TransactionFinality.sequenceLocksSatisfied(transaction, coinHeights: [10], tipHeight: 13, medianTimes: times))
        XCTAssertTrue(TransactionFinality.sequenceLocksSatisfied(transaction, coinHeights: [10], tipHeight: 14, medianTimes: times))
        transaction.version = 1
        XCTAssertTrue(TransactionFinality.sequenceLocksSatisfied(transaction, coinHeights: [10], tipHeight: 13, medianTimes: times),
                      "BIP68 is for version 2 and above")
        // Time lock of 2 × 512 s counted from the median time of the block before the coin's
        // (height 9, 1_005_400): it needs a tip median time above 1_006_423.
        transaction = Transaction(version: 2, inputs: [TransactionInput(previousOutput: .null, sequence: (1 << 22) | 2)],
                                  outputs: [])
        XCTAssertFalse(TransactionFinality.sequenceLocksSatisfied(transaction, coinHeights: [10], tipHeight: 10, medianTimes: times))
        XCTAssertTrue(TransactionFinality.sequenceLocksSatisfied(transaction, coinHeights: [10], tipHeight: 11, medianTimes: times))
    }

    func testUTXOSetUndoRestoresSpentCoins() throws {
        var set = UTXOSet()
        let genesis = RegtestParameters.genesisBlock
        let payout = Script([.number(1)])
        let coinbase = Transaction(inputs: [TransactionInput(previousOutput: .null, scriptSig: Script([.number(1), .zero]))],
                                   outputs: [TransactionOutput(value: 50, scriptPubKey: payout),
                                             TransactionOutput(value: 0, scriptPubKey: Script([.return]))])
        let first = Block(header: genesis.header, transactions: [coinbase])
        _ = try set.connect(first, height: 1)
        let coinOutpoint = OutPoint(txid: coinbase.txid, index: 0)
        XCTAssertEqual(set.coin(coinOutpoint), Coin(output: coinbase.outputs[0], height: 1, isCoinbase: true))
        XCTAssertEqual(set.count, 1, "OP_RETURN outputs are never coins")

        let spend = Transaction(inputs: [TransactionInput(previousOutput: coinOutpoint)],
                                outputs: [TransactionOutput(value: 40, scriptPubKey: payout)])
        let second = Block(header: genesis.header, transactions: [spend])
        let undo = try set.connect(second, height: 2)
        XCTAssertNil(set.coin(coinOutpoint))
        set.disconnect(second, undo: undo)
        XCTAssertNotNil(set.coin(coinOutpoint))
        XCTAssertNil(set.coin(OutPoint(txid: spend.txid, index: 0)))
        // A block spending a coin the view does not hold is a divergence from the kernel.
        var empty = UTXOSet()
        XCTAssertThrowsError(try empty.connect(second, height: 2)) { error in
            guard case ChainError.viewDiverged = error else { return XCTFail("\(error)") }
        }
    }

    func testFeeEstimateIsSetByTheController() throws {
        let chain = try makeRegtestChain()
        defer { chain.close() }
        XCTAssertEqual(chain.estimateSmartFee(target: 6), SmartFeeEstimate(feeRate: nil, blocks: 0))
        chain.setFeeEstimate(.feeRate(2_000))
        XCTAssertEqual(chain.estimateSmartFee(target: 1), SmartFeeEstimate(feeRate: 2_000, blocks: 2))
        XCTAssertEqual(chain.estimateSmartFee(target: 6), SmartFeeEstimate(feeRate: 2_000, blocks: 6))
        chain.setFeeEstimate(.noData)
        XCTAssertEqual(chain.feeEstimate, .noData)
    }
}
