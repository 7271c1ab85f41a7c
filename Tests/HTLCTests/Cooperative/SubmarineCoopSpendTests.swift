import Bitcoin
@testable import HTLC
import TestSupport
import XCTest

/// Cooperative key-path spends of a submarine (`onchain_to_ln`) `taproot_boltz` lock, both
/// pure sides, judged by Bitcoin Core's interpreter (libbitcoinkernel): the provider's claim
/// co-signed by the client (who checks the preimage first), and the client's refund
/// co-signed by the provider, valid before the timeout since the key path has no time lock.
final class SubmarineCoopSpendTests: XCTestCase {
    private var kernel: KernelVerifier!
    /// Submarine roles: the provider claims, the client refunds.
    private let providerKey = Fixture.key(0x51)
    private let clientKey = Fixture.key(0x52)
    private var contract: SwapContract!

    override func setUpWithError() throws {
        kernel = try makeKernelVerifier()
        contract = try SwapContract(type: .taprootBoltz, terms: try SwapTerms(
            network: .regtest, paymentHash: Fixture.paymentHash, claimPublicKey: providerKey.publicKey,
            refundPublicKey: clientKey.publicKey, timeoutHeight: Fixture.timeout, roles: .submarine))
    }

    private var spent: TransactionOutput { contract.lockOutput(value: Fixture.lockValue) }
    private func context() throws -> CoopSpendContext { try CoopSpendContext(contract: contract, lock: Fixture.lock) }

    /// The provider's claim to its own wallet (a swap-out in the claim policy's terms).
    private func providerClaim(to destination: DestinationType = .p2tr,
                               feeRate: FeeRate = try! FeeRate(satPerKvB: 2_000)) throws -> CoopClaimInitiator {
        try CoopClaimInitiator(request: Fixture.claimRequest(contract, to: destination, purpose: .swapOut, feeRate: feeRate),
                               claimKey: providerKey)
    }

    private func clientRefund(to destination: DestinationType = .p2tr,
                              feeRate: FeeRate = try! FeeRate(satPerKvB: 2_000)) throws -> CoopRefundInitiator {
        try CoopRefundInitiator(request: Fixture.refundRequest(contract, to: destination, feeRate: feeRate), refundKey: clientKey)
    }

    func testTheProvidersClaimCoSignedByTheClientIsAKeyPathSpendTheKernelAccepts() throws {
        let claim = try providerClaim()
        let client = try CoopCosigner(context: try context(), kind: .claim, key: clientKey)
        let checked = try client.check(claim: claim.unsignedClaim, preimage: Fixture.preimage)
        XCTAssertEqual(checked.sighash, claim.sighash, "both sides sign the same message")
        let answer = try client.sign(checked, initiatorNonce: claim.publicNonce, record: nil)
        XCTAssertEqual(answer.record.initiatorNonce, claim.publicNonce)
        let signed = try claim.finish(responderNonce: answer.publicNonce, partialSignature: answer.partialSignature)
        XCTAssertEqual(signed.inputs[0].witness.stack.map(\.count), [64], "one 64-byte witness element")
        XCTAssertTrue(KeyPathSpend.isKeyPath(signed.inputs[0].witness, contract: contract))
        XCTAssertTrue(try kernel.accepts(signed, spending: spent))
        var moved = signed
        moved.outputs[0].value -= 1
        XCTAssertFalse(try kernel.accepts(moved, spending: spent), "the signature commits to the outputs")
    }

    /// The client co-signs only a claim that comes with the invoice's preimage and spends
    /// exactly its lock: without the preimage the provider has not paid.
    func testTheClientCoSignsNoClaimWithoutThePreimageOrOfAnythingButTheLock() throws {
        let claim = try providerClaim()
        let client = try CoopCosigner(context: try context(), kind: .claim, key: clientKey)
        XCTAssertThrowsCoop(.preimageMismatch, try client.check(claim: claim.unsignedClaim, preimage: [UInt8](repeating: 9, count: 32)))
        XCTAssertThrowsCoop(.preimageMismatch, try client.check(claim: claim.unsignedClaim, preimage: Fixture.paymentHash))
        var more = claim.unsignedClaim
        more.inputs.append(TransactionInput(previousOutput: OutPoint(txid: try TransactionID(bytes: SHA256.hash([5])), index: 0)))
        XCTAssertThrowsCoop(.inputCount(2), try client.check(claim: more, preimage: Fixture.preimage))
        var elsewhere = claim.unsignedClaim
        elsewhere.inputs[0].previousOutput = OutPoint(txid: Fixture.lockOutPoint.txid, index: 0)
        XCTAssertThrowsCoop(.spendsAnotherOutpoint, try client.check(claim: elsewhere, preimage: Fixture.preimage))
        XCTAssertThrowsCoop(.wrongKind(expected: .claim), try client.check(refund: claim.unsignedClaim))
    }

    func testTheClientsRefundCoSignedByTheProviderIsValidBeforeTheTimeout() throws {
        let refund = try clientRefund()
        XCTAssertEqual(refund.unsignedRefund.lockTime, 0, "no time lock on the key path")
        XCTAssertEqual(refund.unsignedRefund.outputs, [TransactionOutput(value: refund.outputValue,
                                                                         scriptPubKey: Fixture.destination(.p2tr).script)])
        let provider = try CoopCosigner(context: try context(), kind: .refund, key: providerKey)
        let checked = try provider.check(refund: refund.unsignedRefund)
        XCTAssertEqual(checked.fee, refund.fee)
        let answer = try provider.sign(checked, initiatorNonce: refund.publicNonce, record: nil)
        let planned = refund.virtualSize
        let signed = try refund.finish(responderNonce: answer.publicNonce, partialSignature: answer.partialSignature)
        XCTAssertEqual(signed.inputs[0].witness.stack.map(\.count), [64])
        XCTAssertEqual(signed.virtualSize, planned, "the size was planned exactly")
        XCTAssertTrue(try kernel.accepts(signed, spending: spent), "valid now: the script path's refund would wait for the timeout")
        // The script-path refund needs nLockTime = timeout; the key-path one never did.
        let scriptPath = try RefundBuilder.build(Fixture.refundRequest(contract, to: .p2tr), refundKey: clientKey)
        XCTAssertEqual(scriptPath.transaction.lockTime, Fixture.timeout)
        XCTAssertEqual(scriptPath.virtualSize - signed.virtualSize, 27)
    }

    /// A provider answering with a partial signature for another refund (another output, a
    /// lower fee), or under another nonce, is refused before the client signs.
    func testAPartialSignatureForAnotherRefundOrNonceIsRefused() throws {
        let provider = try CoopCosigner(context: try context(), kind: .refund, key: providerKey)
        let refund = try clientRefund()
        var other = refund.unsignedRefund
        other.outputs[0].value -= 100
        let forOther = try provider.sign(try provider.check(refund: other), initiatorNonce: refund.publicNonce, record: nil)
        let otherMessage = refundRefusal(refund, forOther.publicNonce, forOther.partialSignature)
        XCTAssertEqual(otherMessage, .partialSignatureInvalid)
        let second = try clientRefund()
        let stranger = try clientRefund()
        let answer = try provider.sign(try provider.check(refund: second.unsignedRefund), initiatorNonce: stranger.publicNonce,
                                       record: nil)
        let otherNonce = refundRefusal(second, answer.publicNonce, answer.partialSignature)
        XCTAssertEqual(otherNonce, .partialSignatureInvalid)
    }

    /// DeterministicSign: the same request gets the same answer (no new information), a
    /// request with another initiator nonce another responder nonce.
    func testTheCoSignersNonceIsDerivedFromTheRequest() throws {
        let provider = try CoopCosigner(context: try context(), kind: .refund, key: providerKey)
        let first = try clientRefund()
        let second = try clientRefund()
        XCTAssertNotEqual(first.publicNonce, second.publicNonce, "every round draws a fresh nonce")
        let checked = try provider.check(refund: first.unsignedRefund)
        let once = try provider.sign(checked, initiatorNonce: first.publicNonce, record: nil)
        let again = try provider.sign(checked, initiatorNonce: first.publicNonce, record: nil)
        XCTAssertEqual(once, again)
        let fromRecord = try provider.sign(checked, initiatorNonce: first.publicNonce, record: once.record)
        XCTAssertTrue(fromRecord.fromRecord)
        let other = try provider.sign(checked, initiatorNonce: second.publicNonce, record: once.record)
        XCTAssertFalse(other.fromRecord)
        XCTAssertNotEqual(other.publicNonce, once.publicNonce)
    }

    func testEachSideSignsOnlyWithItsOwnKeyForItsOwnPart() throws {
        let context = try context()
        XCTAssertThrowsCoop(.keyMismatch(role: "refund"), try CoopCosigner(context: context, kind: .claim, key: providerKey))
        XCTAssertThrowsCoop(.keyMismatch(role: "claim"), try CoopCosigner(context: context, kind: .refund, key: clientKey))
        XCTAssertThrowsCoop(.keyMismatch(role: "claim"),
                            try CoopClaimInitiator(request: Fixture.claimRequest(contract, to: .p2tr), claimKey: clientKey))
        XCTAssertThrowsCoop(.keyMismatch(role: "refund"),
                            try CoopRefundInitiator(request: Fixture.refundRequest(contract, to: .p2tr), refundKey: providerKey))
        let provider = try CoopCosigner(context: context, kind: .refund, key: providerKey)
        XCTAssertThrowsCoop(.wrongKind(expected: .refund), try provider.check(claim: try clientRefund().unsignedRefund,
                                                                              preimage: Fixture.preimage))
        let tiny = RefundRequest(contract: contract, lock: LockOutput(outPoint: Fixture.lockOutPoint, value: 400),
                                 destination: Fixture.destination(.p2tr), feeRate: try FeeRate(satPerKvB: 2_000))
        XCTAssertThrowsCoop(.claim(.amountBelowDust(amount: 400 - 222, dustLimit: 330)),
                            try CoopRefundInitiator(request: tiny, refundKey: clientKey))
    }

    /// Sizes and fees at 10 sat/vB per destination, every spend accepted by the kernel:
    /// the provider's claim (to its own wallet: it keeps the saving) and the client's
    /// refund, key path against script path (docs/HTLC.md, "Key path").
    func testSubmarineKeyPathSizesAndFeesAgainstTheScriptPathPerDestination() throws {
        let rate = try FeeRate(satPerKvB: 10_000)
        var rows: [String] = []
        for destination in DestinationType.allCases {
            let claim = try providerClaim(to: destination, feeRate: rate)
            let client = try CoopCosigner(context: try context(), kind: .claim, key: clientKey)
            let (claimVsize, claimFee) = (claim.plan.virtualSize, claim.plan.fee)
            let (scriptClaimVsize, scriptClaimFee) = (claim.scriptPathPlan.virtualSize, claim.scriptPathPlan.fee)
            let claimAnswer = try client.sign(try client.check(claim: claim.unsignedClaim, preimage: Fixture.preimage),
                                              initiatorNonce: claim.publicNonce, record: nil)
            let signedClaim = try claim.finish(responderNonce: claimAnswer.publicNonce, partialSignature: claimAnswer.partialSignature)
            XCTAssertTrue(try kernel.accepts(signedClaim, spending: spent), "claim to \(destination)")
            XCTAssertEqual(signedClaim.virtualSize, claimVsize)
            XCTAssertEqual(scriptClaimVsize - claimVsize, 41, "\(destination)")
            XCTAssertEqual(claimFee, rate.fee(forVirtualSize: claimVsize), "the provider keeps the saving")

            let refund = try clientRefund(to: destination, feeRate: rate)
            let provider = try CoopCosigner(context: try context(), kind: .refund, key: providerKey)
            let (refundVsize, refundFee, scriptRefundVsize) = (refund.virtualSize, refund.fee, refund.scriptPathVirtualSize)
            let refundAnswer = try provider.sign(try provider.check(refund: refund.unsignedRefund),
                                                 initiatorNonce: refund.publicNonce, record: nil)
            let signedRefund = try refund.finish(responderNonce: refundAnswer.publicNonce,
                                                 partialSignature: refundAnswer.partialSignature)
            XCTAssertTrue(try kernel.accepts(signedRefund, spending: spent), "refund to \(destination)")
            XCTAssertEqual(signedRefund.virtualSize, refundVsize)
            XCTAssertEqual(refundVsize, claimVsize, "one input, one output, one signature either way")
            let scriptRefund = try RefundBuilder.build(Fixture.refundRequest(contract, to: destination, feeRate: rate),
                                                       refundKey: clientKey)
            XCTAssertEqual(scriptRefund.virtualSize, scriptRefundVsize)
            rows.append("| \(destination) | \(claimVsize) | \(claimFee) | \(scriptClaimVsize) | \(scriptClaimFee) | "
                        + "\(refundVsize) | \(refundFee) | \(scriptRefundVsize) | \(scriptRefund.fee) |")
        }
        print("submarine key path vs script path at 10 sat/vB (claim, refund):\n" + rows.joined(separator: "\n"))
    }
}

/// What a refund's `finish` refused with (nil when it signed): consumed either way.
private func refundRefusal(_ refund: consuming CoopRefundInitiator, _ nonce: MuSig2PublicNonce,
                           _ partialSignature: MuSig2PartialSignature) -> CoopSpendError? {
    do {
        _ = try refund.finish(responderNonce: nonce, partialSignature: partialSignature)
        return nil
    } catch {
        return error
    }
}
