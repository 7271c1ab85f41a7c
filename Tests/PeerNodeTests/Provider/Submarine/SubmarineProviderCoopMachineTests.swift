import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import XCTest

/// The provider's submarine machine with a client that offered `musig2` (issue 17): after
/// paying, one cooperative claim round, recorded before it leaves, and the script-path
/// claim after any ending of it; after a failed payment, the offer of a cooperative refund,
/// whose co-signature is recorded only from the states that never pay.
final class SubmarineProviderCoopMachineTests: XCTestCase {
    typealias F = SubmarineClientFixture
    private let fixture = F(.taprootBoltz, cooperative: true)
    private static let now: UInt64 = 1_800_000_000
    private let round = SubmarineProviderMachineTests.round
    private let cosigned = SubmarineProviderMachineTests.cosignedRefund

    private func machine(cooperative: Bool = true) -> SubmarineProviderMachine {
        let invoice = SubmarineInvoice(network: .regtest, paymentHash: F.paymentHash, amountMsat: 20_000_000,
                                       payeeNodeID: F.key(0x77).publicKey, expiresAtUnix: Self.now + 3_600, minFinalCLTVExpiry: 80)
        return SubmarineProviderMachine(context: SubmarineProviderContext(
            contract: fixture.contract, lockTotalSat: fixture.quote.totalSat, requiredConfirmations: 1, invoice: invoice,
            cooperative: cooperative))
    }

    private var lock: SubmarineLock {
        try! SubmarineLock(verifying: fixture.funding(), contract: fixture.contract, totalSat: fixture.quote.totalSat)
    }

    private var keyPathClaim: SubmarineClaim {
        SubmarineClaim(transaction: fixture.keyPathClaim, feeRate: try! FeeRate(satPerVByte: 1), fee: 111, builtAtHeight: 1_010)
    }

    func testAfterPayingACooperativeSwapAsksForAKeyPathClaimAndRecordsTheRoundFirst() {
        let paid = SubmarineProviderState.paid(lock, preimage: F.preimage)
        let succeeded = SubmarineProviderInput.payment(.succeeded(preimage: F.preimage), tipHeight: 1_010)
        XCTAssertEqual(machine().step(.paymentInFlight(lock, cltvLimit: 120), succeeded),
                       SubmarineProviderStep(next: paid, actions: [.prepareCooperativeClaim]))
        XCTAssertEqual(machine(cooperative: false).step(.paymentInFlight(lock, cltvLimit: 120), succeeded),
                       SubmarineProviderStep(next: paid, actions: [.prepareClaim(replacing: nil)]), "without musig2: the script path")
        let requested = SubmarineProviderState.coopRequested(lock, preimage: F.preimage, round)
        XCTAssertEqual(machine().step(paid, .coopClaimPrepared(round)),
                       SubmarineProviderStep(next: requested, actions: [.requestCooperativeClaim(round)]),
                       "the round is recorded in the step that sends it")
        XCTAssertEqual(machine(cooperative: false).step(paid, .coopClaimPrepared(round)), SubmarineProviderStep())
        XCTAssertEqual(machine().step(requested, .claimPrepared(keyPathClaim)),
                       SubmarineProviderStep(next: .claimBroadcast(lock, preimage: F.preimage, keyPathClaim),
                                             actions: [.broadcastClaim(keyPathClaim)]),
                       "the co-signed claim is recorded before its broadcast, as any claim")
        XCTAssertEqual(machine().step(paid, .recover), SubmarineProviderStep(actions: [.watchLock, .prepareCooperativeClaim]),
                       "no round was recorded before the restart: one may start, with a new nonce")
    }

    func testEveryEndingOfTheRoundGivesTheScriptPathClaimAndNeverASecondRound() {
        let requested = SubmarineProviderState.coopRequested(lock, preimage: F.preimage, round)
        let scriptPath = SubmarineProviderStep(actions: [.prepareClaim(replacing: nil)])
        XCTAssertEqual(machine().step(requested, .coopFailed("refused")), scriptPath)
        XCTAssertEqual(machine().step(requested, .block(height: 1_011, nowUnix: Self.now)), scriptPath)
        XCTAssertEqual(machine().step(requested, .recover), SubmarineProviderStep(actions: [.watchLock, .prepareClaim(replacing: nil)]),
                       "the nonce died with the process")
        XCTAssertEqual(machine().step(requested, .coopClaimPrepared(round)), SubmarineProviderStep(), "one round per swap")
        XCTAssertEqual(machine().step(.paid(lock, preimage: F.preimage), .coopUnavailable("p2wsh")), scriptPath)
        // From the recorded round, whatever comes, no input ever asks for a second one.
        let alphabet: [SubmarineProviderInput] = [
            .recover, .coopFailed("silent"), .coopClaimPrepared(round), .coopUnavailable("no"), .claimFailed,
            .claimPrepared(keyPathClaim), .claimPublished(tipHeight: 1_012), .claimStatus(.missing, tipHeight: 1_020),
            .claimStatus(.unconfirmed, tipHeight: 1_140), .block(height: 1_013, nowUnix: Self.now), .lockMissing,
        ]
        var seen: Set<SubmarineProviderState> = [requested]
        var queue = [requested]
        while let state = queue.popLast() {
            for input in alphabet {
                let step = machine().step(state, input)
                XCTAssertFalse(step.actions.contains { if case .requestCooperativeClaim = $0 { return true } else { return false } },
                               "\(state.kind.rawValue) + \(input) asks again")
                if let next = step.next, seen.insert(next).inserted { queue.append(next) }
            }
        }
        XCTAssertTrue(seen.contains { $0.kind == .claimBroadcast }, "the claim goes out")
    }

    func testAFailedPaymentOffersACooperativeRefundAndOnlyTheStatesThatNeverPayRecordIt() {
        let failed = SubmarineProviderState.paymentFailed(lock, reason: PaymentUpdate.FailureReason.noRoute.description)
        XCTAssertEqual(machine().step(.paymentInFlight(lock, cltvLimit: 120), .payment(.failed(.noRoute), tipHeight: 1_010)),
                       SubmarineProviderStep(next: failed, actions: [.offerCooperativeRefund]))
        XCTAssertEqual(machine(cooperative: false).step(.paymentInFlight(lock, cltvLimit: 120),
                                                        .payment(.failed(.noRoute), tipHeight: 1_010)),
                       SubmarineProviderStep(next: failed))
        // Never sent (a crash before the send): not tracked to a failure, no offer.
        XCTAssertEqual(machine().step(.paymentIntent(lock, cltvLimit: 120), .paymentNotFound).actions, [])
        XCTAssertEqual(machine().step(failed, .block(height: 1_011, nowUnix: Self.now)),
                       SubmarineProviderStep(actions: [.offerCooperativeRefund, .trackPayment]),
                       "again at each block, for a client that was away; the payment looked up for a late success")
        XCTAssertEqual(machine().step(failed, .block(height: UInt32(F.timeout), nowUnix: Self.now)), SubmarineProviderStep(next: .released))
        let signed = SubmarineProviderState.coopRefundSigned(lock, reason: PaymentUpdate.FailureReason.noRoute.description, cosigned)
        XCTAssertEqual(machine().step(failed, .coopRefundAgreed(cosigned)), SubmarineProviderStep(next: signed))
        for mayPay: SubmarineProviderState in [.lockConfirmed(lock), .paymentIntent(lock, cltvLimit: 120),
                                               .paymentInFlight(lock, cltvLimit: 120), .paid(lock, preimage: F.preimage),
                                               .claimBroadcast(lock, preimage: F.preimage, keyPathClaim)] {
            XCTAssertEqual(machine().step(mayPay, .coopRefundAgreed(cosigned)), SubmarineProviderStep(),
                           "\(mayPay.kind.rawValue) records no refund co-signature")
        }
        XCTAssertEqual(machine().step(signed, .lockRefunded(txid: cosigned.txid, confirmations: 1)),
                       SubmarineProviderStep(next: .released))
        XCTAssertEqual(machine().step(signed, .recover), SubmarineProviderStep(actions: [.watchLock, .offerCooperativeRefund]))
        let again = CoopCosigned(kind: .refund, record: CoopSignedRecord(initiatorNonce: F.nonce(0x31), responderNonce: F.nonce(0x33),
                                                                         sighash: cosigned.record.sighash,
                                                                         partialSignature: cosigned.record.partialSignature),
                                 txid: cosigned.txid)
        XCTAssertEqual(machine().step(signed, .coopRefundAgreed(again)),
                       SubmarineProviderStep(next: .coopRefundSigned(lock, reason: PaymentUpdate.FailureReason.noRoute.description, again)),
                       "a client whose round died asks again: a new co-signature, a new record")
    }

    /// A cooperative swap that gives up before paying, with the client's lock in view, waits
    /// in `payment_failed` (a state that never pays) and offers the key-path refund at once,
    /// instead of ending `abandoned` and leaving the client to wait for the timeout. Without
    /// cooperation, or without a lock, it ends `abandoned` as before.
    func testGivingUpBeforePayingOffersACooperativeRefundForTheLock() {
        let expired = SubmarineGiveUp.invoiceExpired(expiresAtUnix: Self.now + 3_600)
        let neverPaid = { (why: SubmarineGiveUp) in
            SubmarineProviderState.paymentFailed(self.lock, reason: SubmarineProviderMachine.neverPaidPrefix + why.description)
        }
        // At pay time the invoice has expired.
        XCTAssertEqual(machine().step(.lockConfirmed(lock), .paymentReady(tipHeight: 1_010, nowUnix: Self.now + 3_600)),
                       SubmarineProviderStep(next: neverPaid(expired), actions: [.offerCooperativeRefund]))
        XCTAssertEqual(machine(cooperative: false).step(.lockConfirmed(lock), .paymentReady(tipHeight: 1_010, nowUnix: Self.now + 3_600)),
                       SubmarineProviderStep(next: .abandoned(expired)))
        // At a block, the same.
        XCTAssertEqual(machine().step(.lockConfirmed(lock), .block(height: 1_010, nowUnix: Self.now + 3_600)),
                       SubmarineProviderStep(next: neverPaid(expired), actions: [.offerCooperativeRefund]))
        // A lock seen that cannot be deep in time.
        let late = machine().step(.lockSeen(lock), .block(height: UInt32(F.timeout), nowUnix: Self.now))
        XCTAssertEqual(late, SubmarineProviderStep(next: neverPaid(.noLockInTime), actions: [.offerCooperativeRefund]))
        XCTAssertEqual(machine(cooperative: false).step(.lockSeen(lock), .block(height: UInt32(F.timeout), nowUnix: Self.now)),
                       SubmarineProviderStep(next: .abandoned(.noLockInTime)))
        // No lock: nothing to refund.
        XCTAssertEqual(machine().step(.accepted, .block(height: UInt32(F.timeout), nowUnix: Self.now)),
                       SubmarineProviderStep(next: .abandoned(.noLockInTime)))
        // From there the swap co-signs and ends released, and never pays.
        let failed = neverPaid(expired)
        XCTAssertEqual(machine().step(failed, .coopRefundAgreed(cosigned)).next?.kind, .coopRefundSigned)
        XCTAssertEqual(machine().step(failed, .paymentReady(tipHeight: 1_011, nowUnix: Self.now)), SubmarineProviderStep())
        // It no longer counts against the risk limits (it will never pay); a failed payment does.
        XCTAssertTrue(failed.gaveUpBeforePaying)
        XCTAssertFalse(SubmarineProviderEngine.holdsRisk(failed))
        XCTAssertFalse(SubmarineProviderEngine.holdsRisk(.coopRefundSigned(lock, reason: SubmarineProviderMachine.neverPaidPrefix + "x",
                                                                           cosigned)))
        XCTAssertTrue(SubmarineProviderEngine.holdsRisk(.paymentFailed(lock, reason: "no_route")))
        XCTAssertTrue(SubmarineProviderEngine.holdsRisk(.lockConfirmed(lock)))
        XCTAssertFalse(SubmarineProviderEngine.holdsRisk(.released))
    }

    /// What the engine reads as "never attempted": the swap's own history from its accept,
    /// without a payment intent. A record recovery re-created (no `accepted`, it starts at
    /// `payment_failed`) never counts, nor does one whose intent was written.
    func testOnlyAHistoryFromTheAcceptWithoutAPaymentIntentIsNeverPaid() {
        let event = { (kind: SubmarineProviderState.Kind) in
            SwapEvent(sequence: 0, kind: kind.rawValue, data: .object([:]), isFinal: false, at: 0)
        }
        XCTAssertTrue(SubmarineProviderEngine.neverPaid([.accepted, .lockSeen, .lockConfirmed, .paymentFailed].map(event)))
        XCTAssertFalse(SubmarineProviderEngine.neverPaid([.accepted, .lockConfirmed, .paymentIntent, .paymentFailed].map(event)))
        XCTAssertFalse(SubmarineProviderEngine.neverPaid([.paymentFailed].map(event)), "re-created by recovery")
        XCTAssertFalse(SubmarineProviderEngine.neverPaid([]))
    }

    /// From a co-signed refund (and from any failed payment), no sequence of inputs pays.
    func testNoSequenceFromAFailedPaymentEverPays() {
        let alphabet: [SubmarineProviderInput] = [
            .recover, .block(height: 1_011, nowUnix: Self.now), .block(height: UInt32(F.timeout), nowUnix: Self.now),
            .paymentReady(tipHeight: 1_011, nowUnix: Self.now), .lockSeen(fixture.funding(), confirmations: 3),
            .payment(.failed(.noRoute), tipHeight: 1_012), .paymentNotFound, .coopRefundAgreed(cosigned),
            .lockRefunded(txid: cosigned.txid, confirmations: 1), .lockMissing, .coopClaimPrepared(round),
        ]
        for start: SubmarineProviderState in [.paymentFailed(lock, reason: "no route"),
                                              .coopRefundSigned(lock, reason: "no route", cosigned)] {
            var seen: Set<SubmarineProviderState> = [start]
            var queue = [start]
            while let state = queue.popLast() {
                for input in alphabet {
                    let step = machine().step(state, input)
                    XCTAssertFalse(step.actions.contains { if case .pay = $0 { return true } else { return false } },
                                   "\(state.kind.rawValue) + \(input) pays")
                    if let next = step.next, seen.insert(next).inserted { queue.append(next) }
                }
            }
            XCTAssertTrue(seen.contains(.released), "\(start.kind.rawValue) ends released")
        }
    }
}
