import Bitcoin
@testable import HTLC
import TestSupport
import XCTest

/// The cooperative claim of a reverse swap between the two pure sides, `CoopClaimInitiator`
/// and `CoopCosigner`, for a real `taproot_boltz` contract, judged by Bitcoin Core's
/// interpreter (libbitcoinkernel); and every way the provider's answer can be wrong,
/// refused by the client before it signs.
final class CoopClaimExchangeTests: XCTestCase {
    private var kernel: KernelVerifier!
    private let contract = Fixture.contract(.taprootBoltz)
    /// Reverse roles: the provider holds the refund key, the client the claim key.
    private let providerKey = Fixture.refundKey
    private let clientKey = Fixture.claimKey

    override func setUpWithError() throws {
        kernel = try makeKernelVerifier()
    }

    private var spent: TransactionOutput { contract.lockOutput(value: Fixture.lockValue) }

    private func provider() throws -> CoopCosigner {
        try CoopCosigner(context: try CoopSpendContext(contract: contract, lock: Fixture.lock), kind: .claim, key: providerKey)
    }

    private func client(to destination: DestinationType = .p2tr, purpose: ClaimPurpose = .payContact) throws -> CoopClaimInitiator {
        try CoopClaimInitiator(request: Fixture.claimRequest(contract, to: destination, purpose: purpose), claimKey: clientKey)
    }

    func testFullExchangeGivesAKeyPathClaimTheKernelAccepts() throws {
        let request = Fixture.claimRequest(contract, to: .p2tr)
        let client = try CoopClaimInitiator(request: request, claimKey: clientKey)
        let record = client.record
        // What the client records and sends: its public nonce, the sighash, the unsigned claim.
        XCTAssertEqual(record.publicNonce, client.publicNonce)
        XCTAssertEqual(record.unsignedTransaction, client.unsignedClaim)
        XCTAssertEqual(record.sighash, try TaprootSighash(transaction: client.unsignedClaim, spentOutputs: [spent]).hash(inputIndex: 0))
        XCTAssertEqual(client.unsignedClaim.inputs.map(\.previousOutput), [Fixture.lockOutPoint])
        XCTAssertFalse(client.unsignedClaim.hasWitness)
        XCTAssertEqual(client.unsignedClaim.outputs, [TransactionOutput(value: request.amount, scriptPubKey: request.destination.script)],
                       "a contact payment sends exactly X")

        let provider = try provider()
        let checked = try provider.check(claim: record.unsignedTransaction, preimage: Fixture.preimage)
        XCTAssertEqual(checked.sighash, record.sighash, "both sides sign the same message")
        XCTAssertEqual(checked.fee, Fixture.lockValue - request.amount)
        let answer = try provider.sign(checked, initiatorNonce: record.publicNonce, record: nil)
        XCTAssertFalse(answer.fromRecord)
        XCTAssertEqual(answer.record.initiatorNonce, record.publicNonce)
        XCTAssertEqual(answer.record.sighash, record.sighash)

        let signed = try client.finish(responderNonce: answer.publicNonce, partialSignature: answer.partialSignature)
        XCTAssertEqual(signed.inputs[0].witness.stack.map(\.count), [64], "one 64-byte witness element")
        XCTAssertEqual(signed.txid, record.unsignedTransaction.txid, "the witness is all that was added")
        XCTAssertTrue(try kernel.accepts(signed, spending: spent))
        // The same signature on any other transaction, or for another lock, is refused.
        var moved = signed
        moved.outputs[0].value -= 1
        XCTAssertFalse(try kernel.accepts(moved, spending: spent))
        let stranger = Fixture.contract(.taprootBoltz, timeout: Fixture.timeout + 1).lockOutput(value: Fixture.lockValue)
        XCTAssertFalse(try kernel.verify(transaction: signed, inputIndex: 0, spentOutputs: [stranger]))
    }

    /// The provider signs a different claim (another fee) with the client's nonce: the
    /// client refuses it before signing anything.
    func testPartialSignatureForAnotherMessageIsRefused() throws {
        let client = try client()
        let provider = try provider()
        var other = client.unsignedClaim
        other.outputs[0].value -= 100
        let checked = try provider.check(claim: other, preimage: Fixture.preimage)
        let answer = try provider.sign(checked, initiatorNonce: client.publicNonce, record: nil)
        let refused = refusal(client, providerNonce: answer.publicNonce, partialSignature: answer.partialSignature)
        XCTAssertEqual(refused, .partialSignatureInvalid)
    }

    func testTamperedPartialSignatureIsRefused() throws {
        let client = try client()
        let provider = try provider()
        let answer = try provider.sign(try provider.check(claim: client.unsignedClaim, preimage: Fixture.preimage),
                                       initiatorNonce: client.publicNonce, record: nil)
        var bytes = answer.partialSignature.bytes
        bytes[31] ^= 0x01
        let tampered = try MuSig2PartialSignature(bytes)
        let refused = refusal(client, providerNonce: answer.publicNonce, partialSignature: tampered)
        XCTAssertEqual(refused, .partialSignatureInvalid)
    }

    /// The right partial signature sent with a nonce other than the one it was made under.
    func testPartialSignatureUnderAnotherNonceIsRefused() throws {
        let client = try client()
        let provider = try provider()
        let checked = try provider.check(claim: client.unsignedClaim, preimage: Fixture.preimage)
        let answer = try provider.sign(checked, initiatorNonce: client.publicNonce, record: nil)
        let otherClientNonce = try MuSig2SecretNonce(publicKey: clientKey.publicKey).publicNonce
        let otherAnswer = try provider.sign(checked, initiatorNonce: otherClientNonce, record: nil)
        XCTAssertNotEqual(otherAnswer.publicNonce, answer.publicNonce, "another client nonce derives another provider nonce")
        let refused = refusal(client, providerNonce: otherAnswer.publicNonce, partialSignature: answer.partialSignature)
        XCTAssertEqual(refused, .partialSignatureInvalid)
    }

    /// A partial signature by a key that is not the provider's (the client's own session
    /// answered by a stranger running DeterministicSign in its own aggregation).
    func testPartialSignatureByAnotherKeyIsRefused() throws {
        let client = try client()
        let context = try CoopSpendContext(contract: contract, lock: Fixture.lock)
        let strangerAggregation = try MuSig2KeyAggregation(publicKeys: [Fixture.strangerKey.publicKey, clientKey.publicKey])
        let forged = try MuSig2Session.deterministicSign(secretKey: Fixture.strangerKey,
                                                         aggregateOtherNonce: client.publicNonce.bytes,
                                                         keyAggregation: strangerAggregation, message: client.sighash)
        XCTAssertNotEqual(strangerAggregation.xOnlyPublicKey, context.keyAggregation.xOnlyPublicKey)
        let refused = refusal(client, providerNonce: forged.publicNonce, partialSignature: forged.partialSignature)
        XCTAssertEqual(refused, .partialSignatureInvalid)
    }

    func testAReplayedRequestIsAnsweredFromTheRecordWithTheIdenticalSignature() throws {
        let client = try client()
        let provider = try provider()
        let checked = try provider.check(claim: client.unsignedClaim, preimage: Fixture.preimage)
        let first = try provider.sign(checked, initiatorNonce: client.publicNonce, record: nil)
        let replay = try provider.sign(try provider.check(claim: client.unsignedClaim, preimage: Fixture.preimage),
                                       initiatorNonce: client.publicNonce, record: first.record)
        XCTAssertTrue(replay.fromRecord, "nothing is signed for a replay")
        XCTAssertEqual(replay.record, first.record)
        XCTAssertEqual(replay.partialSignature, first.partialSignature)
        XCTAssertEqual(replay.publicNonce, first.publicNonce)
        // A new request (another claim: a fee bump) is signed afresh, under a new nonce.
        var bumped = client.unsignedClaim
        bumped.outputs[0].value -= 50
        let fresh = try provider.sign(try provider.check(claim: bumped, preimage: Fixture.preimage),
                                      initiatorNonce: client.publicNonce, record: first.record)
        XCTAssertFalse(fresh.fromRecord)
        XCTAssertNotEqual(fresh.publicNonce, first.publicNonce, "never the old nonce for another message")
        // The replayed answer completes the claim as the first would have.
        let signed = try client.finish(responderNonce: replay.publicNonce, partialSignature: replay.partialSignature)
        XCTAssertTrue(try kernel.accepts(signed, spending: spent))
    }

    /// Per destination type, at one fee rate: the key-path claim against the script-path
    /// claim of today (the fallback). A contact payment sends the same X and pays the
    /// saving as fee (a higher rate); a swap-out pays the key-path fee at the rate and keeps
    /// the saving. Every key-path claim is accepted by the kernel.
    func testKeyPathSizesAndFeesAgainstTheScriptPathPerDestination() throws {
        let feeRate = try FeeRate(satPerKvB: 10_000)
        var rows: [String] = []
        for destination in DestinationType.allCases {
            let provider = try provider()
            var results: [ClaimPurpose: (keyPath: ClaimPlan, scriptPath: ClaimPlan)] = [:]
            for purpose in ClaimPurpose.allCases {
                let request = Fixture.claimRequest(contract, to: destination, purpose: purpose, feeRate: feeRate)
                let client = try CoopClaimInitiator(request: request, claimKey: clientKey)
                let summary = (keyPath: client.plan, scriptPath: client.scriptPathPlan)
                let answer = try provider.sign(try provider.check(claim: client.unsignedClaim, preimage: Fixture.preimage),
                                               initiatorNonce: client.publicNonce, record: nil)
                let signed = try client.finish(responderNonce: answer.publicNonce, partialSignature: answer.partialSignature)
                XCTAssertTrue(try kernel.accepts(signed, spending: spent), "\(destination) \(purpose)")
                XCTAssertEqual(signed.virtualSize, summary.keyPath.virtualSize, "the size was planned exactly")
                XCTAssertEqual(summary.scriptPath.virtualSize, SpendSize.claim(contract: contract, destination: destination))
                XCTAssertEqual(summary.scriptPath.virtualSize - summary.keyPath.virtualSize, 41, "\(destination)")
                results[purpose] = summary
            }
            let contact = results[.payContact]!
            let swapOut = results[.swapOut]!
            XCTAssertEqual(contact.keyPath.outputValue, contact.scriptPath.outputValue, "X exactly")
            XCTAssertEqual(contact.keyPath.fee, contact.scriptPath.fee)
            XCTAssertEqual(swapOut.keyPath.fee, feeRate.fee(forVirtualSize: swapOut.keyPath.virtualSize))
            XCTAssertEqual(swapOut.keyPath.outputValue - swapOut.scriptPath.outputValue, 410, "41 vB at 10 sat/vB is the client's")
            rows.append("| \(destination) | \(swapOut.keyPath.virtualSize) | \(swapOut.keyPath.fee) | "
                        + "\(swapOut.scriptPath.virtualSize) | \(swapOut.scriptPath.fee) |")
        }
        print("key path vs script path at 10 sat/vB:\n" + rows.joined(separator: "\n"))
    }
}

/// What `finish` refused with (nil when it signed): the client is consumed either way.
func refusal(_ client: consuming CoopClaimInitiator, providerNonce: MuSig2PublicNonce,
             partialSignature: MuSig2PartialSignature) -> CoopSpendError? {
    do {
        _ = try client.finish(responderNonce: providerNonce, partialSignature: partialSignature)
        return nil
    } catch {
        return error
    }
}

/// Asserts that `body` throws exactly `expected`.
func XCTAssertThrowsCoop<T: ~Copyable>(_ expected: CoopSpendError, _ body: @autoclosure () throws -> T,
                            file: StaticString = #filePath, line: UInt = #line) {
    do {
        _ = try body()
        XCTFail("expected \(expected), got no error", file: file, line: line)
    } catch let error as CoopSpendError {
        XCTAssertEqual(error, expected, file: file, line: line)
    } catch {
        XCTFail("expected \(expected), got \(error)", file: file, line: line)
    }
}
