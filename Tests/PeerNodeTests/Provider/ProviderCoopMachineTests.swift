import Bitcoin
import HTLC
import Lightning
@testable import PeerNode
import XCTest

/// The provider machine's part in a cooperative claim (issue 17): it records the preimage
/// and its co-signature only where a push would be settled, then settles; a second request
/// is never recorded; and a spend of the lock after co-signing raises no alarm.
final class ProviderCoopMachineTests: XCTestCase {
    private let preimage = [UInt8](repeating: 0x42, count: 32)
    private lazy var machine = ProviderSwapMachine(context: ProviderSwapContext(
        paymentHash: SHA256.hash(preimage), timeoutHeight: 200,
        policy: try! TimelockPolicy(requiredConfirmations: 1, htlcTimeoutBlocks: 40)))

    private static func transaction(_ tag: UInt8, lockTime: UInt32 = 0) -> Transaction {
        Transaction(inputs: [TransactionInput(previousOutput: OutPoint(txid: try! TransactionID(bytes: [UInt8](repeating: tag, count: 32)),
                                                                        index: 0), sequence: TransactionInput.replaceableSequence)],
                    outputs: [TransactionOutput(value: 100_000, scriptPubKey: Script(bytes: [0x51, 0x20] + [UInt8](repeating: tag, count: 32)))],
                    lockTime: lockTime)
    }

    /// A co-signature record (the values need not verify: the machine only stores them).
    static let coop: CoopCosigned = {
        let nonce = { (byte: UInt8) in try! MuSig2SecretNonce(publicKey: PrivateKey([UInt8](repeating: byte, count: 32)).publicKey).publicNonce }
        return CoopCosigned(record: CoopSignedRecord(initiatorNonce: nonce(3), responderNonce: nonce(4),
                                                          sighash: [UInt8](repeating: 5, count: 32),
                                                          partialSignature: try! MuSig2PartialSignature([UInt8](repeating: 6, count: 32))),
                                 txid: transaction(8).txid)
    }()

    private let lock = ProviderLock(transaction: transaction(1), outputIndex: 0, fee: 154, height: 160)
    private let refund = ProviderRefund(transaction: transaction(2, lockTime: 200), feeRate: try! FeeRate(satPerKvB: 2_000),
                                        fee: 276, destination: Script(bytes: [0x51, 0x20] + [UInt8](repeating: 9, count: 32)))

    private var agreed: ProviderSwapInput { .coopClaimAgreed(preimage: preimage, claim: Self.coop, tipHeight: 160) }

    func testALockedSwapRecordsPreimageAndCoSignatureTogetherThenSettles() {
        let expected = ProviderSwapStep(next: .coopSigned(lock, preimage: preimage, claim: Self.coop),
                                        actions: [.settleInvoice(preimage: preimage)])
        XCTAssertEqual(machine.step(.lockBroadcast(lock), agreed), expected)
        XCTAssertEqual(machine.step(.lockConfirmed(lock), agreed), expected)
        XCTAssertEqual(machine.step(.claimObserved(lock, preimage: preimage), agreed), expected,
                       "the preimage known already (a push): the same preimage pays for either claim")
        let signed = ProviderSwapState.coopSigned(lock, preimage: preimage, claim: Self.coop)
        XCTAssertEqual(machine.step(signed, .invoiceSettled), ProviderSwapStep(next: .settled, actions: [.pushStatus(.settled)]))
        XCTAssertEqual(machine.step(signed, .block(height: 170)), ProviderSwapStep(actions: [.settleInvoice(preimage: preimage)]))
    }

    func testNothingIsRecordedWhereAPushWouldNotSettle() {
        let wrong = ProviderSwapInput.coopClaimAgreed(preimage: [UInt8](repeating: 1, count: 32), claim: Self.coop, tipHeight: 160)
        XCTAssertEqual(machine.step(.lockBroadcast(lock), wrong), ProviderSwapStep(), "a preimage of another hash")
        XCTAssertEqual(machine.step(.lockBroadcast(lock.withHTLCCancelled(at: 170)), agreed), ProviderSwapStep(),
                       "the client's HTLC is gone: nothing to be paid with")
        for state: ProviderSwapState in [.invoiceCreated, .invoiceAccepted(htlcExpiry: 300), .fundingIntent(lock),
                                         .refundIntent(lock, refund), .refundBroadcast(lock, refund),
                                         .claimPending(lock, refund, preimage: preimage), .settled, .refunded, .cancelled] {
            XCTAssertEqual(machine.step(state, agreed), ProviderSwapStep(), "\(state.kind.rawValue)")
        }
    }

    func testASecondCoSignatureIsNeverRecorded() {
        let signed = ProviderSwapState.coopSigned(lock, preimage: preimage, claim: Self.coop)
        let other = CoopCosigned(record: CoopSignedRecord(initiatorNonce: Self.coop.record.responderNonce,
                                                               responderNonce: Self.coop.record.initiatorNonce,
                                                               sighash: [UInt8](repeating: 9, count: 32),
                                                               partialSignature: Self.coop.record.partialSignature),
                                      txid: Self.coop.txid)
        XCTAssertEqual(machine.step(signed, .coopClaimAgreed(preimage: preimage, claim: other, tipHeight: 160)), ProviderSwapStep())
    }

    /// The co-signed key-path claim (or the client's script-path fallback) spends the lock:
    /// its own claim, paid for by the recorded preimage; no alarm, no `lock_lost`.
    func testASpendAfterCoSigningIsTheClaimNotALoss() {
        let signed = ProviderSwapState.coopSigned(lock, preimage: preimage, claim: Self.coop)
        XCTAssertEqual(machine.step(signed, .unreadableSpend(txid: Self.coop.txid, confirmations: 1)), ProviderSwapStep())
        XCTAssertEqual(machine.step(signed, .claimSeen(preimage: preimage, confirmations: 1, txid: Self.coop.txid)),
                       ProviderSwapStep())
        // Without a co-signature, the same spend is the alarm (audit C-2), as before.
        let lost = machine.step(.lockConfirmed(lock), .unreadableSpend(txid: Self.coop.txid, confirmations: 1))
        XCTAssertEqual(lost.next?.kind, .lockLost)
    }

    func testTheRecordRoundTripsAndNamesNoSecretInItsDescription() throws {
        let signed = ProviderSwapState.coopSigned(lock, preimage: preimage, claim: Self.coop)
        XCTAssertEqual(try ProviderSwapState(kind: "coop_signed", data: signed.eventData), signed)
        XCTAssertFalse(signed.description.contains(preimage.hex))
        XCTAssertEqual(signed.kind.status, nil, "not a status the client acts on")
        XCTAssertThrowsError(try ProviderSwapState(kind: "coop_signed", data: ProviderSwapState.claimObserved(lock, preimage: preimage).eventData))
    }
}
