import Bitcoin
@testable import HTLC
import XCTest

/// `KeyPathSpend.isKeyPath`: the engines' chain watchers read a lock's spend by its witness;
/// a cooperative claim (one aggregate signature) must read as a key path, every script-path
/// spend (claim or refund, annex or not) and every P2WSH spend as not one.
final class KeyPathSpendRecognitionTests: XCTestCase {
    private let taproot = Fixture.contract(.taprootBoltz)

    private func cooperativeClaim() throws -> Transaction {
        let request = Fixture.claimRequest(taproot, to: .p2tr)
        let client = try CoopClaimInitiator(request: request, claimKey: Fixture.claimKey)
        let provider = try CoopCosigner(context: try CoopSpendContext(contract: taproot, lock: Fixture.lock),
                                        kind: .claim, key: Fixture.refundKey)
        let checked = try provider.check(claim: client.unsignedClaim, preimage: Fixture.preimage)
        let answer = try provider.sign(checked, initiatorNonce: client.publicNonce, record: nil)
        return try client.finish(responderNonce: answer.publicNonce, partialSignature: answer.partialSignature)
    }

    func testTheCooperativeClaimIsAKeyPathSpendAndRevealsNoPreimage() throws {
        let claim = try cooperativeClaim()
        let witness = claim.inputs[0].witness
        XCTAssertTrue(KeyPathSpend.isKeyPath(witness, contract: taproot))
        XCTAssertEqual(PreimageExtractor.spend(witness, contract: taproot), .unreadableClaim,
                       "the extractor alone would call it a spend without a preimage: the watchers ask KeyPathSpend first")
        // With an annex (consensus allows one) it is still the key path.
        XCTAssertTrue(KeyPathSpend.isKeyPath(Witness(witness.stack + [[0x50, 0x01]]), contract: taproot))
        // A 65-byte signature carries an explicit sighash type.
        XCTAssertTrue(KeyPathSpend.isKeyPath(Witness([witness.stack[0] + [0x01]]), contract: taproot))
    }

    func testScriptPathSpendsAndP2WSHAreNotTheKeyPath() throws {
        let claim = try ClaimBuilder().build(Fixture.claimRequest(taproot, to: .p2tr), claimKey: Fixture.claimKey,
                                             preimage: Fixture.preimage).transaction
        XCTAssertFalse(KeyPathSpend.isKeyPath(claim.inputs[0].witness, contract: taproot))
        let refund = try RefundBuilder.build(Fixture.refundRequest(taproot, to: .p2tr), refundKey: Fixture.refundKey)
        XCTAssertFalse(KeyPathSpend.isKeyPath(refund.transaction.inputs[0].witness, contract: taproot))
        XCTAssertFalse(KeyPathSpend.isKeyPath(Witness([]), contract: taproot))
        XCTAssertFalse(KeyPathSpend.isKeyPath(Witness([[UInt8](repeating: 1, count: 32)]), contract: taproot),
                       "one item of another size is no signature")
        let p2wsh = Fixture.contract(.p2wsh)
        XCTAssertFalse(KeyPathSpend.isKeyPath(Witness([[UInt8](repeating: 1, count: 64)]), contract: p2wsh),
                       "a P2WSH contract has no key path")
    }
}
