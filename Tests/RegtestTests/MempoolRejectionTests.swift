import Bitcoin
import Regtest
import TestSupport
import XCTest

/// Transactions Bitcoin Core's mempool refuses are refused here with Core's reason, details
/// and sendrawtransaction code (compare Tests/Data/fixtures/bitcoind/sendrawtransaction_*.json).
final class MempoolRejectionTests: MatureChainTestCase {
    func testBadSignatureIsAScriptVerifyFailure() throws {
        let coin = try coinbase(of: chain, atHeight: 1)
        var spend = try wallet.spend(coin.outpoint, value: coin.value, fee: 10_000)
        spend.inputs[0].witness.stack[0][8] ^= 0x01 // inside the DER r value
        let refused = try XCTUnwrap(rejection { try chain.submit(spend) })
        XCTAssertEqual(refused.reason,
                       "mempool-script-verify-flag-failed (Signature must be zero for failed CHECK(MULTI)SIG operation)")
        XCTAssertEqual(refused.details, "input 0 of \(spend.txid) (wtxid \(spend.wtxid)), spending \(coin.outpoint)")
        XCTAssertEqual(refused.sendRawTransactionCode, -26)
        XCTAssertEqual(refused.testAcceptReason, refused.reason)
        XCTAssertEqual(refused.testAcceptDetails, refused.message)
        XCTAssertTrue(chain.mempoolEntries().isEmpty)
    }

    func testSpendOfAnOutputSpentInABlockIsMissingInputs() throws {
        let coin = try coinbase(of: chain, atHeight: 1)
        try chain.submit(try wallet.spend(coin.outpoint, value: coin.value, fee: 10_000))
        try chain.mine(1, to: wallet.script)
        let doubleSpend = try wallet.spend(coin.outpoint, value: coin.value, fee: 20_000)
        let refused = try XCTUnwrap(rejection { try chain.submit(doubleSpend) })
        XCTAssertEqual(refused.kind, .missingInputs)
        XCTAssertEqual(refused.sendRawTransactionCode, -25)
        XCTAssertEqual(refused.sendRawTransactionMessage, "bad-txns-inputs-missingorspent")
        XCTAssertEqual(refused.testAcceptReason, "missing-inputs")
        XCTAssertNil(refused.testAcceptDetails)
    }

    func testNeverExistingInputIsMissingInputs() throws {
        let outpoint = OutPoint(txid: try TransactionID(hex: String(repeating: "ab", count: 32)), index: 0)
        let spend = try wallet.spend(outpoint, value: 100_000, fee: 1_000)
        XCTAssertEqual(rejection { try chain.submit(spend) }?.kind, .missingInputs)
    }

    /// v31 judges a double spend of a mempool outpoint as a replacement (full RBF): with the
    /// same fee it is refused for not paying the relay fee for its own size on top.
    func testDoubleSpendOfAMempoolOutputWithTheSameFeeIsAnInsufficientFeeReplacement() throws {
        let coin = try coinbase(of: chain, atHeight: 1)
        let original = try wallet.spend(coin.outpoint, value: coin.value, fee: 10_000)
        try chain.submit(original)
        let conflicting = try wallet.spend([coin], to: [TransactionOutput(value: coin.value - 10_000,
                                                                          scriptPubKey: TestWallet(seed: 7).script)])
        let refused = try XCTUnwrap(rejection { try chain.submit(conflicting) })
        XCTAssertEqual(refused.reason, "insufficient fee")
        XCTAssertEqual(refused.details, "rejecting replacement \(conflicting.txid), not enough additional fees to relay; "
            + "0.00 < \(Money.format(Int64(conflicting.virtualSize)))")
        XCTAssertEqual(refused.sendRawTransactionCode, -26)
        XCTAssertNotNil(chain.mempoolEntry(original.txid), "the original stays")
    }

    /// nLockTime 100 blocks ahead: the transaction is not final for the next block.
    func testPrematureLockTimeIsNonFinal() throws {
        let coin = try coinbase(of: chain, atHeight: 1)
        let refund = try wallet.spend(coin.outpoint, value: coin.value, fee: 10_000,
                                      lockTime: UInt32(chain.height + 100))
        let refused = try XCTUnwrap(rejection { try chain.submit(refund) })
        XCTAssertEqual(refused.message, "non-final")
        XCTAssertEqual(refused.testAcceptDetails, "non-final")
        // Final once the lock time is below the next block's height.
        let ready = try wallet.spend(coin.outpoint, value: coin.value, fee: 10_000, lockTime: UInt32(chain.height))
        XCTAssertNoThrow(try chain.submit(ready))
    }

    /// A CLTV-locked output spent by a final transaction whose nLockTime is below the
    /// script's: the kernel's CHECKLOCKTIMEVERIFY fails it.
    func testPrematureCheckLockTimeVerifySpendIsAScriptFailure() throws {
        let lockHeight = Int64(chain.height + 20)
        let witnessScript = Script([.pushNumber(lockHeight), .checkLockTimeVerify, .drop, .number(1)])
        let lockedScript = Address.p2wsh(scriptHash: SHA256.hash(witnessScript.bytes)).script
        let coin = try coinbase(of: chain, atHeight: 1)
        let fund = try wallet.spend([coin], to: [TransactionOutput(value: coin.value - 10_000, scriptPubKey: lockedScript)])
        try chain.submit(fund)
        try chain.mine(1, to: wallet.script)

        var refund = Transaction(version: 2,
                                 inputs: [TransactionInput(previousOutput: OutPoint(txid: fund.txid, index: 0),
                                                           sequence: TransactionInput.replaceableSequence,
                                                           witness: Witness([witnessScript.bytes]))],
                                 outputs: [TransactionOutput(value: coin.value - 20_000, scriptPubKey: wallet.script)],
                                 lockTime: UInt32(chain.height))
        let refused = try XCTUnwrap(rejection { try chain.submit(refund) })
        XCTAssertEqual(refused.reason, "mempool-script-verify-flag-failed (Locktime requirement not satisfied)")
        XCTAssertEqual(refused.details, "input 0 of \(refund.txid) (wtxid \(refund.wtxid)), spending \(fund.txid):0")

        try chain.mine(Int(lockHeight) - chain.height, to: wallet.script)
        refund.lockTime = UInt32(lockHeight)
        XCTAssertEqual(try chain.submit(refund), refund.txid)
    }

    func testImmatureCoinbaseSpendIsRefusedWithItsDepth() throws {
        let coin = try coinbase(of: chain, atHeight: chain.height)
        let spend = try wallet.spend(coin.outpoint, value: coin.value, fee: 10_000)
        let refused = try XCTUnwrap(rejection { try chain.submit(spend) })
        XCTAssertEqual(refused.message, "bad-txns-premature-spend-of-coinbase, tried to spend coinbase at depth 1")
        XCTAssertEqual(refused.testAcceptReason, "bad-txns-premature-spend-of-coinbase")
        XCTAssertEqual(refused.sendRawTransactionCode, -26)
        // 100 blocks deep it is mature: the coinbase at height 11 is spendable in block 111.
        let mature = try coinbase(of: chain, atHeight: chain.height - 99)
        XCTAssertNoThrow(try chain.submit(try wallet.spend(mature.outpoint, value: mature.value, fee: 10_000)))
    }

    func testRelativeLockNotYetMetIsNonBIP68Final() throws {
        let coin = try coinbase(of: chain, atHeight: 1)
        let parent = try wallet.spend(coin.outpoint, value: coin.value, fee: 10_000)
        try chain.submit(parent)
        try chain.mine(1, to: wallet.script)
        let child = try wallet.spend(OutPoint(txid: parent.txid, index: 0), value: coin.value - 10_000, fee: 10_000,
                                     sequence: 10)
        XCTAssertEqual(rejection { try chain.submit(child) }?.message, "non-BIP68-final")
        try chain.mine(9, to: wallet.script)
        XCTAssertNoThrow(try chain.submit(child), "10 confirmations in the next block")
    }

    func testFeeBelowTheRelayFloorAndDustAreRefused() throws {
        let coin = try coinbase(of: chain, atHeight: 1)
        let free = try wallet.spend(coin.outpoint, value: coin.value, fee: 0)
        XCTAssertEqual(rejection { try chain.submit(free) }?.message, "min relay fee not met, 0 < \(free.virtualSize)")
        let cheap = try wallet.spend(coin.outpoint, value: coin.value, fee: 100)
        XCTAssertEqual(rejection { try chain.submit(cheap) }?.message, "min relay fee not met, 100 < \(cheap.virtualSize)")

        let dusty = try wallet.spend([coin], to: [TransactionOutput(value: 100, scriptPubKey: wallet.script),
                                                  TransactionOutput(value: coin.value - 20_000, scriptPubKey: wallet.script)])
        let refused = try XCTUnwrap(rejection { try chain.submit(dusty) })
        XCTAssertEqual(refused.message, "dust, tx with dust output must be 0-fee")
        XCTAssertEqual(refused.testAcceptReason, "dust")
        // 294 sat is the P2WPKH threshold at 3 sat/vB: not dust.
        let edge = try wallet.spend([coin], to: [TransactionOutput(value: 294, scriptPubKey: wallet.script),
                                                 TransactionOutput(value: coin.value - 20_000, scriptPubKey: wallet.script)])
        XCTAssertNoThrow(try chain.testAccept(edge))
    }

    func testSpendingMoreThanTheInputsIsInBelowOut() throws {
        let coin = try coinbase(of: chain, atHeight: 1)
        let overspend = try wallet.spend(coin.outpoint, value: coin.value, fee: -1)
        XCTAssertEqual(rejection { try chain.submit(overspend) }?.message,
                       "bad-txns-in-belowout, value in (50.00) < value out (50.00000001)")
    }

    func testFeeAboveTheCapIsRefusedOnlyWithACap() throws {
        let coin = try coinbase(of: chain, atHeight: 1)
        let generous = try wallet.spend(coin.outpoint, value: coin.value, fee: 50_000_000)
        let refused = try XCTUnwrap(rejection { try chain.submit(generous) })
        XCTAssertEqual(refused.kind, .maxFeeExceeded)
        XCTAssertEqual(refused.sendRawTransactionCode, -25)
        XCTAssertEqual(refused.sendRawTransactionMessage,
                       "Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)")
        XCTAssertEqual(refused.testAcceptReason, "max-fee-exceeded")
        XCTAssertEqual(try chain.submit(generous, maxFeeRate: 0), generous.txid)
    }

    func testKnownTransactions() throws {
        let coin = try coinbase(of: chain, atHeight: 1)
        let spend = try wallet.spend(coin.outpoint, value: coin.value, fee: 10_000)
        try chain.submit(spend)
        // Re-sending a mempool transaction returns its txid, even with another witness.
        XCTAssertEqual(try chain.submit(spend), spend.txid)
        var otherWitness = spend
        otherWitness.inputs[0].witness.stack[0][8] ^= 1
        XCTAssertEqual(try chain.submit(otherWitness), spend.txid)
        XCTAssertEqual(rejection { _ = try chain.testAccept(spend) }?.message, "txn-already-in-mempool")
        XCTAssertEqual(rejection { _ = try chain.testAccept(otherWitness) }?.message, "txn-same-nonwitness-data-in-mempool")

        try chain.mine(1, to: wallet.script)
        let confirmed = try XCTUnwrap(rejection { try chain.submit(spend) })
        XCTAssertEqual(confirmed.kind, .alreadyInUTXOSet)
        XCTAssertEqual(confirmed.sendRawTransactionCode, -27)
        XCTAssertEqual(confirmed.sendRawTransactionMessage, "Transaction outputs already in utxo set")
        XCTAssertEqual(confirmed.testAcceptReason, "txn-already-known")
    }

    func testTestAcceptDoesNotAddToTheMempool() throws {
        let coin = try coinbase(of: chain, atHeight: 1)
        let spend = try wallet.spend(coin.outpoint, value: coin.value, fee: 10_000)
        let entry = try chain.testAccept(spend)
        XCTAssertEqual(entry.fee, 10_000)
        XCTAssertEqual(entry.vsize, spend.virtualSize)
        XCTAssertTrue(chain.mempoolEntries().isEmpty)
    }
}
