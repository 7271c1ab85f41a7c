import Bitcoin
import Regtest
import TestSupport
import XCTest

/// `hub_mine_transaction`'s chain side: a spend Core's mempool refuses for policy only (a
/// non-minimal OP_IF selector, a Taproot annex) is refused by the hub's mempool with Core's
/// reason, yet mined on demand; a consensus-invalid spend is refused by both.
final class ForcedMiningTests: MatureChainTestCase {
    /// `OP_IF OP_1 OP_ELSE OP_0 OP_ENDIF`: valid with any true selector, minimal or not.
    private let branchScript = Script([.if, .number(1), .else, .zero, .endIf])
    /// A tapscript leaf that is just `OP_1`: spendable by its script path with no signature.
    private let trueLeaf = TapLeaf(script: Script([.number(1)]))

    /// Confirms an output of `value` sat paying `scriptPubKey`, from the coinbase at `height`.
    private func fund(_ scriptPubKey: Script, value: Int64 = 100_000, fromHeight height: Int = 1) throws -> OutPoint {
        let coin = try coinbase(of: chain, atHeight: height)
        let funding = try wallet.spend([coin], to: [TransactionOutput(value: value, scriptPubKey: scriptPubKey),
                                                    TransactionOutput(value: coin.value - value - 10_000,
                                                                      scriptPubKey: wallet.script)])
        try chain.submit(funding)
        try chain.mine(1, to: wallet.script)
        return OutPoint(txid: funding.txid, index: 0)
    }

    private func spend(_ outpoint: OutPoint, witness: [[UInt8]], value: Int64 = 100_000, fee: Int64 = 1_000) -> Transaction {
        Transaction(version: 2,
                    inputs: [TransactionInput(previousOutput: outpoint, sequence: TransactionInput.replaceableSequence,
                                              witness: Witness(witness))],
                    outputs: [TransactionOutput(value: value - fee, scriptPubKey: wallet.script)])
    }

    private func isConfirmed(_ txid: TransactionID) -> Bool {
        if case .block = chain.transaction(txid)?.location { return true }
        return false
    }

    private func consensusRejection(_ body: () throws -> Void) -> ConsensusRejection? {
        do {
            try body()
            XCTFail("the transaction was mined")
        } catch let rejection as ConsensusRejection {
            return rejection
        } catch {
            XCTFail("unexpected error \(error)")
        }
        return nil
    }

    func testNonMinimalIfSelectorIsRefusedByTheMempoolButMinedByForce() throws {
        let outpoint = try fund(Address.p2wsh(scriptHash: SHA256.hash(branchScript.bytes)).script)
        let minimal = spend(outpoint, witness: [[0x01], branchScript.bytes])
        XCTAssertNoThrow(try chain.testAccept(minimal), "0x01 is minimal: standard")
        let nonMinimal = spend(outpoint, witness: [[0x02], branchScript.bytes])

        let refused = try XCTUnwrap(rejection { try chain.submit(nonMinimal) })
        XCTAssertEqual(refused.reason, "mempool-script-verify-flag-failed (OP_IF/NOTIF argument must be minimal)")
        XCTAssertEqual(refused.details, "input 0 of \(nonMinimal.txid) (wtxid \(nonMinimal.wtxid)), spending \(outpoint)")
        XCTAssertEqual(refused.sendRawTransactionCode, -26)
        XCTAssertTrue(chain.mempoolEntries().isEmpty)

        let height = chain.height
        let hash = try chain.mineTransaction(nonMinimal, to: wallet.script)
        XCTAssertEqual(chain.height, height + 1)
        XCTAssertEqual(chain.tipHash, hash)
        XCTAssertTrue(isConfirmed(nonMinimal.txid))
        XCTAssertNil(chain.unspentOutput(outpoint))
        try assertKernelAgrees(chain)
    }

    /// OP_NOTIF takes the same rule, and a selector reached through stack operations is found too.
    func testNonMinimalSelectorBehindStackOperationsIsFound() throws {
        let script = Script([.swap, .drop, .notIf, .number(1), .else, .zero, .endIf])
        let outpoint = try fund(Address.p2wsh(scriptHash: SHA256.hash(script.bytes)).script)
        // Stack bottom to top: junk, selector; SWAP DROP leaves the selector for OP_NOTIF.
        XCTAssertNoThrow(try chain.testAccept(spend(outpoint, witness: [[0x07], [], script.bytes])))
        let refused = rejection { try chain.submit(spend(outpoint, witness: [[0x07], [0x00], script.bytes])) }
        XCTAssertEqual(refused?.reason, "mempool-script-verify-flag-failed (OP_IF/NOTIF argument must be minimal)")
    }

    func testTaprootAnnexIsRefusedByTheMempoolButMinedByForce() throws {
        let internalKey = wallet.key.xOnlyPublicKey
        let tree = TapTree.leaf(trueLeaf)
        let output = try internalKey.tapTweaked(merkleRoot: tree.merkleRoot)
        let outpoint = try fund(Address.p2tr(outputKey: output.key.bytes).script)
        let control = try ControlBlock(tree: tree, leaf: trueLeaf, internalKey: internalKey.bytes,
                                       outputKeyIsOdd: output.parityOdd).bytes
        XCTAssertNoThrow(try chain.testAccept(spend(outpoint, witness: [trueLeaf.script.bytes, control])),
                         "the script path without an annex is standard")
        let annexed = spend(outpoint, witness: [trueLeaf.script.bytes, control, [0x50, 0x01]])

        let refused = try XCTUnwrap(rejection { try chain.submit(annexed) })
        XCTAssertEqual(refused.message, "bad-witness-nonstandard")
        XCTAssertEqual(refused.sendRawTransactionCode, -26)

        try chain.mineTransaction(annexed, to: wallet.script)
        XCTAssertTrue(isConfirmed(annexed.txid))
        try assertKernelAgrees(chain)
    }

    func testConsensusInvalidSpendIsRefusedByBoth() throws {
        let outpoint = try fund(Address.p2wsh(scriptHash: SHA256.hash(branchScript.bytes)).script)
        // The empty selector takes the OP_0 branch: the script ends false.
        let invalid = spend(outpoint, witness: [[], branchScript.bytes])
        let refused = rejection { try chain.submit(invalid) }
        XCTAssertEqual(refused?.reason.hasPrefix("mempool-script-verify-flag-failed ("), true)

        let height = chain.height
        let tip = chain.tipHash
        let forced = consensusRejection { try chain.mineTransaction(invalid, to: wallet.script) }
        XCTAssertEqual(forced?.reason.hasPrefix("block-script-verify-flag-failed ("), true)
        XCTAssertEqual(chain.height, height, "no block")
        XCTAssertEqual(chain.tipHash, tip)
        XCTAssertNotNil(chain.unspentOutput(outpoint))
        try assertKernelAgrees(chain)
    }

    func testForcedSpendOfAMissingOrOverspentInputIsRefused() throws {
        let outpoint = try fund(Address.p2wsh(scriptHash: SHA256.hash(branchScript.bytes)).script)
        let missing = spend(OutPoint(txid: try TransactionID(hex: String(repeating: "ab", count: 32)), index: 0),
                            witness: [[0x01], branchScript.bytes])
        XCTAssertEqual(consensusRejection { try chain.mineTransaction(missing, to: wallet.script) }?.reason,
                       "bad-txns-inputs-missingorspent")
        let overspent = spend(outpoint, witness: [[0x01], branchScript.bytes], value: 100_001, fee: 0)
        XCTAssertEqual(consensusRejection { try chain.mineTransaction(overspent, to: wallet.script) }?.reason,
                       "bad-txns-in-belowout")
    }

    /// The forced spend wins over a mempool spend of the same output, which is evicted; its
    /// unconfirmed parent is mined with it, whatever the parent's fee.
    func testForcedSpendEvictsAConflictAndTakesItsParent() throws {
        let p2wsh = Address.p2wsh(scriptHash: SHA256.hash(branchScript.bytes)).script
        let coin = try coinbase(of: chain, atHeight: 2)
        let parent = try wallet.spend([coin], to: [TransactionOutput(value: 100_000, scriptPubKey: p2wsh),
                                                   TransactionOutput(value: coin.value - 100_000 - 200, scriptPubKey: wallet.script)])
        try chain.submit(parent)
        let outpoint = OutPoint(txid: parent.txid, index: 0)
        let standard = spend(outpoint, witness: [[0x01], branchScript.bytes], fee: 5_000)
        try chain.submit(standard)
        let nonStandard = spend(outpoint, witness: [[0x02], branchScript.bytes], fee: 100)

        let hash = try chain.mineTransaction(nonStandard, to: wallet.script)
        let block = try XCTUnwrap(chain.block(hash)).block
        XCTAssertEqual(block.transactions.map(\.txid), [block.transactions[0].txid, parent.txid, nonStandard.txid])
        XCTAssertNil(chain.mempoolEntry(standard.txid), "the conflicting spend is gone")
        XCTAssertTrue(chain.mempoolEntries().isEmpty)
        try assertKernelAgrees(chain)
    }
}
