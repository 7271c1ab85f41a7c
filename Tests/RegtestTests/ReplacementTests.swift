import Bitcoin
import Regtest
import TestSupport
import XCTest

/// Full RBF as in Core v31: a conflicting spend replaces the mempool transaction only when
/// it pays more in total and per vbyte.
final class ReplacementTests: XCTestCase {
    func testHigherFeeReplacementEvictsTheOriginalAndItsChild() throws {
        let chain = try makeRegtestChain()
        defer { chain.close() }
        let wallet = TestWallet()
        try chain.mine(101, to: wallet.script)
        let coin = try coinbase(of: chain, atHeight: 1)
        let original = try wallet.spend(coin.outpoint, value: coin.value, fee: 10_000)
        let child = try wallet.spend(OutPoint(txid: original.txid, index: 0), value: coin.value - 10_000, fee: 5_000)
        try chain.submit(original)
        try chain.submit(child)

        let replacement = try wallet.spend([coin], to: [TransactionOutput(value: coin.value - 100_000,
                                                                          scriptPubKey: TestWallet(seed: 9).script)])
        XCTAssertEqual(try chain.submit(replacement), replacement.txid)
        XCTAssertEqual(chain.mempoolEntries().map(\.entry.txid), [replacement.txid])
        try chain.mine(1, to: wallet.script)
        XCTAssertEqual(try XCTUnwrap(chain.block(atHeight: 102)).block.transactions.last?.txid, replacement.txid)
    }

    func testLowerFeeReplacementIsRefused() throws {
        let chain = try makeRegtestChain()
        defer { chain.close() }
        let wallet = TestWallet()
        let (coin, original) = try submitCoinbaseSpend(on: chain, wallet: wallet)
        let cheaper = try wallet.spend([coin], to: [TransactionOutput(value: coin.value - 5_000,
                                                                      scriptPubKey: TestWallet(seed: 9).script)])
        let refused = try XCTUnwrap(rejection { try chain.submit(cheaper) })
        XCTAssertEqual(refused.message, "insufficient fee, rejecting replacement \(cheaper.txid), "
            + "less fees than conflicting txs; 0.00005 < 0.0001")
        XCTAssertEqual(chain.mempoolEntries().map(\.entry.txid), [original.txid])
    }

    /// More fee in total but a lower rate (a much larger transaction) does not improve the
    /// mempool and is refused.
    func testLargerReplacementWithALowerFeeRateIsRefused() throws {
        let chain = try makeRegtestChain()
        defer { chain.close() }
        let wallet = TestWallet()
        try chain.mine(102, to: wallet.script)
        let coin = try coinbase(of: chain, atHeight: 1)
        let extra = try coinbase(of: chain, atHeight: 2)
        let original = try wallet.spend(coin.outpoint, value: coin.value, fee: 50_000)
        try chain.submit(original)
        // Two inputs and many outputs: about 5x the size for 1.2x the fee.
        let outputs = (0..<20).map { _ in TransactionOutput(value: 1_000_000, scriptPubKey: wallet.script) }
            + [TransactionOutput(value: coin.value + extra.value - 20_000_000 - 60_000, scriptPubKey: wallet.script)]
        let bigger = try wallet.spend([coin, extra], to: outputs)
        let refused = try XCTUnwrap(rejection { try chain.submit(bigger) })
        XCTAssertEqual(refused.message, "replacement-failed, insufficient feerate: does not improve feerate diagram")
    }
}
