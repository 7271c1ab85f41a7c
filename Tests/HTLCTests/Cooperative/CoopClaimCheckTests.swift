import Bitcoin
@testable import HTLC
import XCTest

/// The provider's check of a claim it is asked to co-sign: only a transaction that can do
/// nothing but claim this swap's lock, with the right preimage, passes.
final class CoopClaimCheckTests: XCTestCase {
    private let contract = Fixture.contract(.taprootBoltz)

    private func check() throws -> CoopSpendCheck {
        CoopSpendCheck(context: try CoopSpendContext(contract: contract, lock: Fixture.lock))
    }

    /// A well-formed claim: one input (the lock), one output, no witness.
    private func claim(paying value: Int64 = Fixture.lockValue - 300) -> Transaction {
        Transaction(inputs: [TransactionInput(previousOutput: Fixture.lockOutPoint, sequence: TransactionInput.replaceableSequence)],
                    outputs: [TransactionOutput(value: value, scriptPubKey: Fixture.destination(.p2wpkh).script)])
    }

    func testAWellFormedClaimPassesWithItsSighashAndFee() throws {
        let checked = try check().check(claim: claim(), preimage: Fixture.preimage)
        XCTAssertEqual(checked.fee, 300)
        let spent = contract.lockOutput(value: Fixture.lockValue)
        XCTAssertEqual(checked.sighash, try TaprootSighash(transaction: claim(), spentOutputs: [spent]).hash(inputIndex: 0))
        // Fee 0 (everything to the outputs), several outputs, version 1, a past height lock time.
        var several = claim(paying: 60_000)
        several.outputs.append(TransactionOutput(value: 40_000, scriptPubKey: Fixture.destination(.p2tr).script))
        several.version = 1
        several.lockTime = Fixture.timeout - 1
        XCTAssertEqual(try check().check(claim: several, preimage: Fixture.preimage).fee, 0)
    }

    func testAClaimOfAnotherOutpointIsRefused() throws {
        var other = claim()
        other.inputs[0].previousOutput = OutPoint(txid: Fixture.lockOutPoint.txid, index: 0)
        XCTAssertThrowsCoop(.spendsAnotherOutpoint, try check().check(claim: other, preimage: Fixture.preimage))
        other.inputs[0].previousOutput = OutPoint(txid: try TransactionID(bytes: SHA256.hash([1])), index: 1)
        XCTAssertThrowsCoop(.spendsAnotherOutpoint, try check().check(claim: other, preimage: Fixture.preimage))
    }

    func testTwoInputsOrNoneAreRefused() throws {
        var two = claim()
        two.inputs.append(TransactionInput(previousOutput: OutPoint(txid: try TransactionID(bytes: SHA256.hash([2])), index: 0)))
        XCTAssertThrowsCoop(.inputCount(2), try check().check(claim: two, preimage: Fixture.preimage))
        // The lock twice is two inputs too (and an invalid transaction).
        var twice = claim()
        twice.inputs.append(twice.inputs[0])
        XCTAssertThrowsCoop(.inputCount(2), try check().check(claim: twice, preimage: Fixture.preimage))
        var none = claim()
        none.inputs = []
        XCTAssertThrowsCoop(.inputCount(0), try check().check(claim: none, preimage: Fixture.preimage))
    }

    func testAWrongPreimageIsRefused() throws {
        XCTAssertThrowsCoop(.preimageMismatch, try check().check(claim: claim(), preimage: [UInt8](repeating: 0x08, count: 32)))
        XCTAssertThrowsCoop(.preimageMismatch, try check().check(claim: claim(), preimage: Array(Fixture.preimage.prefix(31))))
        XCTAssertThrowsCoop(.preimageMismatch, try check().check(claim: claim(), preimage: Fixture.paymentHash))
    }

    func testOutputsVersionLockTimeAndSignaturesAreChecked() throws {
        XCTAssertThrowsCoop(.outputsExceedLock(outputs: Fixture.lockValue + 1, lockValue: Fixture.lockValue),
                            try check().check(claim: claim(paying: Fixture.lockValue + 1), preimage: Fixture.preimage))
        var overflow = claim(paying: Int64.max)
        overflow.outputs.append(overflow.outputs[0])
        XCTAssertThrowsError(try check().check(claim: overflow, preimage: Fixture.preimage))
        XCTAssertThrowsError(try check().check(claim: claim(paying: -1), preimage: Fixture.preimage))
        var empty = claim()
        empty.outputs = []
        XCTAssertThrowsCoop(.outputCount(0, maximum: 16), try check().check(claim: empty, preimage: Fixture.preimage))
        var many = claim(paying: 1_000)
        many.outputs = Array(repeating: many.outputs[0], count: 17)
        XCTAssertThrowsCoop(.outputCount(17, maximum: 16), try check().check(claim: many, preimage: Fixture.preimage))
        var witnessed = claim()
        witnessed.inputs[0].witness = Witness([[UInt8](repeating: 0, count: 64)])
        XCTAssertThrowsCoop(.alreadySigned, try check().check(claim: witnessed, preimage: Fixture.preimage))
        var scriptSig = claim()
        scriptSig.inputs[0].scriptSig = Script(bytes: [0x51])
        XCTAssertThrowsCoop(.alreadySigned, try check().check(claim: scriptSig, preimage: Fixture.preimage))
        for version: Int32 in [0, 3, -1] {
            var odd = claim()
            odd.version = version
            XCTAssertThrowsCoop(.unsupportedVersion(version), try check().check(claim: odd, preimage: Fixture.preimage))
        }
        for lockTime: UInt32 in [Fixture.timeout, Fixture.timeout + 1, 500_000_000, .max] {
            var late = claim()
            late.lockTime = lockTime
            XCTAssertThrowsCoop(.lockTimeNotBeforeTimeout(lockTime: lockTime, timeoutHeight: Fixture.timeout),
                                try check().check(claim: late, preimage: Fixture.preimage))
        }
    }

    func testOnlyATaprootContractAndTheRightKeysCooperate() throws {
        XCTAssertThrowsCoop(.noKeyPath, try CoopSpendContext(contract: Fixture.contract(.p2wsh), lock: Fixture.lock))
        // A submarine contract (keys trading places) has the same internal key: KeyAgg(provider, client).
        let submarineTerms = try SwapTerms(network: .regtest, paymentHash: Fixture.paymentHash,
                                           claimPublicKey: Fixture.refundKey.publicKey, refundPublicKey: Fixture.claimKey.publicKey,
                                           timeoutHeight: Fixture.timeout, roles: .submarine)
        let submarine = try SwapContract(type: .taprootBoltz, terms: submarineTerms)
        let submarineContext = try CoopSpendContext(contract: submarine, lock: Fixture.lock)
        XCTAssertEqual(submarine.address, .p2tr(outputKey: submarineContext.keyAggregation.xOnlyPublicKey.bytes),
                       "the tweaked aggregate is the submarine lock's output key")
        let context = try CoopSpendContext(contract: contract, lock: Fixture.lock)
        XCTAssertEqual(context.keyAggregation.xOnlyPublicKey, contract.address == .p2tr(outputKey: context.keyAggregation.xOnlyPublicKey.bytes)
                       ? context.keyAggregation.xOnlyPublicKey : nil, "the tweaked aggregate is the lock's output key")
        XCTAssertThrowsCoop(.keyMismatch(role: "refund"), try CoopCosigner(context: context, kind: .claim, key: Fixture.claimKey))
        XCTAssertThrowsCoop(.keyMismatch(role: "claim"),
                            try CoopClaimInitiator(request: Fixture.claimRequest(contract, to: .p2tr), claimKey: Fixture.refundKey))
        // The x-only twin of the client's key signs its script leaf, but KeyAgg uses the
        // full key: it is refused here rather than producing a useless signature.
        let negated = try PrivateKey(Self.curveOrderMinus(Fixture.claimKey.bytes))
        XCTAssertEqual(negated.xOnlyPublicKey, Fixture.claimKey.xOnlyPublicKey)
        XCTAssertThrowsCoop(.keyMismatch(role: "claim"),
                            try CoopClaimInitiator(request: Fixture.claimRequest(contract, to: .p2tr), claimKey: negated))
    }

    /// n − k, big-endian: the other private key with the same x-only public key.
    private static func curveOrderMinus(_ k: [UInt8]) -> [UInt8] {
        let order = [UInt8](hex: "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")!
        var result = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for index in (0..<32).reversed() {
            var digit = Int(order[index]) - Int(k[index]) - borrow
            borrow = digit < 0 ? 1 : 0
            if digit < 0 { digit += 256 }
            result[index] = UInt8(digit)
        }
        return result
    }
}
