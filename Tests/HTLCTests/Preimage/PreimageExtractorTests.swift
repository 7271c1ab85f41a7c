import Bitcoin
@testable import HTLC
import TestSupport
import XCTest

final class PreimageExtractorTests: XCTestCase {
    func testRoundTripFromOurClaims() throws {
        for type in ContractType.allCases {
            let contract = Fixture.contract(type)
            for destination in DestinationType.allCases {
                let claim = try ClaimBuilder().build(Fixture.claimRequest(contract, to: destination),
                                                     claimKey: Fixture.claimKey, preimage: Fixture.preimage).transaction
                XCTAssertEqual(try PreimageExtractor.preimage(from: claim, spending: Fixture.lockOutPoint, contract: contract),
                               Fixture.preimage)
                XCTAssertEqual(try PreimageExtractor.preimage(in: claim.inputs[0].witness, paymentHash: Fixture.paymentHash),
                               Fixture.preimage)
            }
        }
    }

    func testRefundWitnessesAreRefused() throws {
        for type in ContractType.allCases {
            let contract = Fixture.contract(type)
            let refund = try RefundBuilder.build(Fixture.refundRequest(contract, to: .p2wpkh), refundKey: Fixture.refundKey)
            XCTAssertThrows(.witnessIsRefund,
                            try PreimageExtractor.preimage(from: refund.transaction, spending: Fixture.lockOutPoint, contract: contract))
            XCTAssertThrows(.noPreimageInWitness,
                            try PreimageExtractor.preimage(in: refund.transaction.inputs[0].witness, paymentHash: Fixture.paymentHash))
        }
    }

    func testOtherWitnessesAreRefused() throws {
        for type in ContractType.allCases {
            let contract = Fixture.contract(type)
            let claim = try ClaimBuilder().build(Fixture.claimRequest(contract, to: .p2tr), claimKey: Fixture.claimKey,
                                                 preimage: Fixture.preimage).transaction
            // A claim of another swap (other payment hash) does not pass for this one.
            let other = Fixture.contract(type, paymentHash: SHA256.hash([UInt8](repeating: 0x08, count: 32)))
            XCTAssertThrows(.noPreimageInWitness, try PreimageExtractor.preimage(from: claim.inputs[0].witness, contract: other))
            XCTAssertThrows(.noPreimageInWitness, try PreimageExtractor.preimage(from: Witness(), contract: contract))
            // Right shape, wrong value: never handed on (a claim that reveals no preimage).
            var wrong = claim.inputs[0].witness
            wrong.stack[1] = [UInt8](repeating: 0x08, count: 32)
            XCTAssertThrows(.noPreimageInWitness, try PreimageExtractor.preimage(from: wrong, contract: contract))
            wrong.stack[1] = [UInt8](repeating: 0x08, count: 31)
            XCTAssertThrows(.noPreimageInWitness, try PreimageExtractor.preimage(from: wrong, contract: contract))
            // A transaction that does not spend the lock.
            var unrelated = claim
            unrelated.inputs[0].previousOutput = OutPoint(txid: .zero, index: 0)
            XCTAssertThrows(.lockNotSpent,
                            try PreimageExtractor.preimage(from: unrelated, spending: Fixture.lockOutPoint, contract: contract))
        }
    }

    /// boltz-core `preimage_detector.rs`: three real claims (P2SH-P2WSH, Taproot script path,
    /// P2WSH), and a hash nothing matches.
    func testBoltzPreimageDetectionVectors() throws {
        let root = try XCTUnwrap(try Vectors.json("boltz/boltz_transactions.json") as? [String: Any])
        let detection = try XCTUnwrap(root["preimage_detection"] as? [String: Any])
        let cases = try XCTUnwrap(detection["cases"] as? [[String: Any]])
        XCTAssertEqual(cases.count, 3)
        var transactions: [String: Transaction] = [:]
        for vector in cases {
            let name = try XCTUnwrap(vector["name"] as? String)
            let tx = try Transaction(hex: try XCTUnwrap(vector["tx_hex"] as? String))
            transactions[name] = tx
            let preimage = bytes(try XCTUnwrap(vector["preimage"] as? String))
            let index = try XCTUnwrap(vector["input_index"] as? Int)
            XCTAssertEqual(try PreimageExtractor.preimage(in: tx.inputs[index].witness, paymentHash: SHA256.hash(preimage)),
                           preimage, name)
        }
        let noMatch = try XCTUnwrap(detection["no_match_case"] as? [String: Any])
        let tx = try XCTUnwrap(transactions[try XCTUnwrap(noMatch["tx"] as? String)])
        XCTAssertThrows(.noPreimageInWitness,
                        try PreimageExtractor.preimage(in: tx.inputs[0].witness,
                                                       paymentHash: bytes(try XCTUnwrap(noMatch["payment_hash"] as? String))))
    }
}

/// Audit C-2: the claim path is recognised by what it reveals, not by the exact witness
/// shape our builder makes. Consensus-valid claims of other shapes (a miner that takes
/// non-standard transactions can mine them) must still hand the provider the preimage.
final class PreimageExtractorShapeTests: XCTestCase {
    private var kernel: KernelVerifier!

    override func setUpWithError() throws {
        kernel = try makeKernelVerifier()
    }

    private func claim(_ contract: SwapContract) throws -> Transaction {
        try ClaimBuilder().build(Fixture.claimRequest(contract, to: .p2wpkh), claimKey: Fixture.claimKey,
                                 preimage: Fixture.preimage).transaction
    }

    func testATaprootClaimWithAnAnnexStillRevealsThePreimage() throws {
        let contract = Fixture.contract(.taprootBoltz)
        guard case .taprootBoltz(let taproot) = contract else { return XCTFail("not taproot") }
        var tx = try claim(contract)
        let annex: [UInt8] = [0x50, 0x01]
        let message = try TaprootSighash(transaction: tx, spentOutputs: [contract.lockOutput(value: Fixture.lockValue)])
            .hash(inputIndex: 0, hashType: .default, annex: annex,
                  scriptPath: TaprootSighash.ScriptPath(leaf: taproot.claimLeaf))
        let signature = try SchnorrSignature.sign(message: message, with: Fixture.claimKey).bytes
        tx.inputs[0].witness = Witness([signature, Fixture.preimage, taproot.claimLeaf.script.bytes,
                                        taproot.claimControlBlock.bytes, annex])
        XCTAssertTrue(try kernel.accepts(tx, spending: contract.lockOutput(value: Fixture.lockValue)), "consensus-valid")
        XCTAssertEqual(try PreimageExtractor.preimage(from: tx, spending: Fixture.lockOutPoint, contract: contract),
                       Fixture.preimage)
    }

    func testAP2WSHClaimWithANonMinimalSelectorStillRevealsThePreimage() throws {
        let contract = Fixture.contract(.p2wsh)
        var tx = try claim(contract)
        let stack = tx.inputs[0].witness.stack
        tx.inputs[0].witness = Witness([stack[0], stack[1], [0x02], stack[3]])
        XCTAssertTrue(try kernel.accepts(tx, spending: contract.lockOutput(value: Fixture.lockValue)), "consensus-valid")
        XCTAssertEqual(try PreimageExtractor.preimage(from: tx, spending: Fixture.lockOutPoint, contract: contract),
                       Fixture.preimage)
    }

    /// A refund whose selector is a non-minimal false (`0x00`) is still our refund: only the
    /// refund key can sign that branch.
    func testAP2WSHRefundWithANonMinimalFalseSelectorIsARefund() throws {
        let contract = Fixture.contract(.p2wsh)
        var tx = try RefundBuilder.build(Fixture.refundRequest(contract, to: .p2wpkh), refundKey: Fixture.refundKey).transaction
        let stack = tx.inputs[0].witness.stack
        tx.inputs[0].witness = Witness([stack[0], [0x00], stack[2]])
        XCTAssertTrue(try kernel.accepts(tx, spending: contract.lockOutput(value: Fixture.lockValue)), "consensus-valid")
        XCTAssertThrows(.witnessIsRefund,
                        try PreimageExtractor.preimage(from: tx, spending: Fixture.lockOutPoint, contract: contract))
    }

    /// A spend that is not our refund and reveals no preimage is not silently dropped: it is
    /// told apart (`unreadableClaim`) so the engine can raise its alarm.
    func testASpendThatIsNeitherRefundNorReadableClaimIsToldApart() throws {
        for type in ContractType.allCases {
            let contract = Fixture.contract(type)
            var witness = try claim(contract).inputs[0].witness
            witness.stack[1] = [UInt8](repeating: 0x08, count: 33)
            XCTAssertEqual(PreimageExtractor.spend(witness, contract: contract), .unreadableClaim, "\(type)")
            XCTAssertEqual(PreimageExtractor.spend(Witness([[UInt8](repeating: 1, count: 64)]), contract: contract),
                           .unreadableClaim, "\(type): a key-path spend we did not make")
        }
    }
}
