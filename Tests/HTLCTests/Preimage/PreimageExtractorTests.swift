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
            // Right shape, wrong value: never handed on.
            var wrong = claim.inputs[0].witness
            wrong.stack[1] = [UInt8](repeating: 0x08, count: 32)
            XCTAssertThrows(.preimageMismatch, try PreimageExtractor.preimage(from: wrong, contract: contract))
            wrong.stack[1] = [UInt8](repeating: 0x08, count: 31)
            XCTAssertThrows(.invalidPreimageLength(31), try PreimageExtractor.preimage(from: wrong, contract: contract))
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
