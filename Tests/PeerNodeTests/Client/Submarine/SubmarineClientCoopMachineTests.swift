import Bitcoin
import HTLC
import Offers
@testable import PeerNode
import XCTest

/// The client's submarine machine with cooperation on (issue 17): it co-signs the
/// provider's key-path claim only with the payment hash's preimage and no refund out,
/// recorded before the answer leaves, and then knows the key-path spend as the claim; its
/// refund rounds are recorded before they leave, never resumed after a restart, bounded,
/// asked only while the invoice is not known paid, and the script-path refund from the
/// timeout stays whatever they do.
final class SubmarineClientCoopMachineTests: XCTestCase {
    typealias F = SubmarineClientFixture
    private let fixture = F(.taprootBoltz, cooperative: true)

    private func machine(at phase: SubmarineClientPhase) -> SubmarineClientMachine { fixture.machine(at: phase) }

    func testTheClaimIsCoSignedOnlyWithThePreimageAndRecordedBeforeTheAnswer() {
        var machine = machine(at: .lockConfirmed)
        let cosigned = fixture.cosignedClaim
        XCTAssertEqual(machine.handle(.coopClaimAgreed(preimage: [UInt8](repeating: 9, count: 32), cosigned)), [],
                       "a value that is not the payment hash's preimage records nothing")
        XCTAssertEqual(machine.phase, .lockConfirmed)
        let actions = machine.handle(.coopClaimAgreed(preimage: F.preimage, cosigned))
        XCTAssertEqual(machine.phase, .coopSigned)
        XCTAssertEqual(machine.state.coopClaim, cosigned)
        XCTAssertEqual(machine.state.preimage, F.preimage)
        XCTAssertEqual(machine.state.preimageSource, .cooperativeClaim)
        XCTAssertEqual(actions, [.persist(machine.state), .reportPaid(preimage: F.preimage)], "the record first")
        XCTAssertEqual(machine.handle(.coopClaimAgreed(preimage: F.preimage, cosigned)), [], "a replay records nothing")
        var other = fixture.cosignedClaim
        other = CoopCosigned(kind: .claim, record: other.record, txid: fixture.claim().txid)
        XCTAssertEqual(machine.handle(.coopClaimAgreed(preimage: F.preimage, other)), [], "one co-signature per swap")
        XCTAssertEqual(machine.state.coopClaim, cosigned)
    }

    /// The key-path spend with the co-signed txid is the provider's claim: the preimage
    /// recorded then completes the swap. Any other key-path spend changes nothing.
    func testTheCoSignedKeyPathSpendIsTheClaimAndAnyOtherChangesNothing() {
        var stranger = machine(at: .lockConfirmed)
        var foreign = fixture.keyPathClaim
        foreign.outputs[0].value -= 1
        XCTAssertEqual(stranger.handle(.lockSpent(foreign, confirmations: 3)), [], "never co-signed: no proof of anything")
        XCTAssertEqual(stranger.handle(.block(height: F.timeout)).last, .buildRefund(fixture.lock), "the refund still runs")

        var machine = machine(at: .coopSigned)
        XCTAssertEqual(machine.handle(.lockSpent(foreign, confirmations: 3)), [])
        XCTAssertEqual(machine.handle(.lockSpent(fixture.keyPathClaim, confirmations: 0)), [.persist(machine.state)])
        XCTAssertEqual(machine.phase, .paid)
        XCTAssertEqual(machine.state.claimTxid, fixture.keyPathClaim.txid)
        XCTAssertEqual(machine.handle(.lockSpent(fixture.keyPathClaim, confirmations: 2)), [.persist(machine.state), .finish])
        XCTAssertEqual(machine.phase, .completed)
        XCTAssertEqual(machine.state.outcome?.funds, .delivered)
    }

    func testNoCoSignatureOnceARefundIsOutNorForASwapWithoutCooperation() {
        var refunding = machine(at: .refundBroadcast)
        XCTAssertEqual(refunding.handle(.coopClaimAgreed(preimage: F.preimage, fixture.cosignedClaim)), [])
        var plain = F(.taprootBoltz).machine(at: .lockConfirmed)
        XCTAssertEqual(plain.handle(.coopClaimAgreed(preimage: F.preimage, fixture.cosignedClaim)), [])
        XCTAssertEqual(plain.handle(.coopRefundOffered), [], "a swap without musig2 asks for nothing")
        XCTAssertEqual(plain.handle(.coopRefundPrepared(fixture.refundRound)), [])
        var p2wsh = F(.p2wsh, cooperative: true).machine(at: .lockConfirmed)
        XCTAssertEqual(p2wsh.handle(.coopRefundOffered), [], "no key path")
    }

    func testARefundRoundIsRecordedBeforeItsRequestAndTheKeyPathRefundGoesOutBeforeTheTimeout() {
        var machine = machine(at: .lockConfirmed)
        XCTAssertEqual(machine.handle(.coopRefundOffered), [.prepareCooperativeRefund(fixture.lock)])
        let round = fixture.refundRound
        let actions = machine.handle(.coopRefundPrepared(round))
        XCTAssertEqual(machine.phase, .coopRefundRequested)
        XCTAssertEqual(machine.state.coopRefund, round)
        XCTAssertEqual(machine.state.coopRefundRounds, 1)
        XCTAssertEqual(actions, [.persist(machine.state), .requestCooperativeRefund(round)], "the record first")
        XCTAssertEqual(machine.handle(.coopRefundOffered), [], "one round at a time")
        let refund = fixture.keyPathRefund
        XCTAssertEqual(machine.handle(.coopRefundSigned(refund)), [.persist(machine.state), .broadcastRefund(refund)])
        XCTAssertEqual(machine.phase, .refundBroadcast)
        XCTAssertEqual(machine.state.refundTxids, [refund.txid])
        // Before the timeout no script-path bump is valid: the key-path refund is sent again.
        XCTAssertEqual(machine.handle(.block(height: F.acceptTip + 5)), [.checkChain, .broadcastRefund(refund)])
        XCTAssertEqual(machine.handle(.block(height: F.timeout)), [.checkChain, .bumpRefund(previous: refund, tipHeight: F.timeout)],
                       "from the timeout on, bumps take the script path")
        XCTAssertEqual(machine.handle(.lockSpent(refund, confirmations: 2)), [.persist(machine.state), .finish])
        XCTAssertEqual(machine.phase, .refunded)
        XCTAssertEqual(machine.state.outcome?.funds, .refunded)
    }

    func testARoundThatFailsOrDiesWithTheProcessIsNeverResumedAndTheRoundsAreBounded() {
        var machine = machine(at: .coopRefundRequested)
        XCTAssertEqual(machine.handle(.coopRefundFailed("refused")), [.persist(machine.state)])
        XCTAssertEqual(machine.phase, .lockConfirmed)
        XCTAssertEqual(machine.state.coopRefundFallback, "refused")
        XCTAssertEqual(machine.handle(.coopRefundSigned(fixture.keyPathRefund)), [], "no round is open")
        XCTAssertEqual(machine.handle(.block(height: F.timeout)).last, .buildRefund(fixture.lock),
                       "the script-path refund from the timeout, as without cooperation")

        var restarted = SubmarineClientMachine(settings: fixture.settings(), state: self.machine(at: .coopRefundRequested).state)
        let resumed = restarted.handle(.recover(tipHeight: nil))
        XCTAssertFalse(resumed.contains { if case .requestCooperativeRefund = $0 { return true } else { return false } },
                       "the nonce is gone: the round is never sent again")
        XCTAssertEqual(restarted.phase, .lockConfirmed)
        for round in 2...3 {
            XCTAssertEqual(restarted.handle(.coopRefundOffered), [.prepareCooperativeRefund(fixture.lock)], "round \(round)")
            _ = restarted.handle(.coopRefundPrepared(fixture.refundRound))
            XCTAssertEqual(restarted.state.coopRefundRounds, round)
            _ = restarted.handle(.coopRefundFailed("silent"))
        }
        XCTAssertEqual(restarted.handle(.coopRefundOffered), [], "three rounds at most")
    }

    func testNoRefundRoundOnceTheInvoiceIsKnownPaid() {
        for phase in [SubmarineClientPhase.paid, .coopSigned] {
            var paid = machine(at: phase)
            XCTAssertEqual(paid.handle(.coopRefundOffered), [], "\(phase)")
            XCTAssertEqual(paid.handle(.coopRefundPrepared(fixture.refundRound)), [], "\(phase)")
        }
        var asking = machine(at: .coopRefundRequested)
        _ = asking.handle(.preimageLearned(F.preimage, source: .claim))
        XCTAssertEqual(asking.phase, .paid)
        XCTAssertEqual(asking.handle(.coopRefundSigned(fixture.keyPathRefund)), [], "paid meanwhile: the round's answer is dropped")
    }

    /// Random walks over every input: each refund request follows its own record in the
    /// same step, at most three are ever sent, none once the preimage is known, and the
    /// co-signature of a claim is recorded once and never changes.
    func testRandomWalksKeepTheRecordFirstAndTheBounds() {
        let inputs: [SubmarineClientInput] = [
            .coopRefundOffered, .coopRefundPrepared(fixture.refundRound), .coopRefundFailed("x"),
            .coopRefundSigned(fixture.keyPathRefund), .coopClaimAgreed(preimage: F.preimage, fixture.cosignedClaim),
            .recover(tipHeight: nil),
            .lockConfirmations(1), .lockConfirmations(0), .block(height: F.acceptTip + 3), .block(height: F.timeout),
            .lockSpent(fixture.keyPathClaim, confirmations: 0), .lockUnspent, .preimageLearned(F.preimage, source: .settledInvoice),
            .refundSigned(fixture.refund()),
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1_000 {
            var machine = machine(at: .lockConfirmed)
            var requests = 0
            var claimRecord: CoopCosigned?
            for _ in 0..<25 {
                let input = inputs.randomElement(using: &generator)!
                let knewPreimage = machine.state.preimage != nil
                let actions = machine.handle(input)
                for (index, action) in actions.enumerated() {
                    guard case .requestCooperativeRefund(let round) = action else { continue }
                    requests += 1
                    XCTAssertFalse(knewPreimage, "a refund asked for once paid")
                    guard index > 0, case .persist(let stored) = actions[index - 1] else { return XCTFail("a request without its record") }
                    XCTAssertEqual(stored.phase, .coopRefundRequested)
                    XCTAssertEqual(stored.coopRefund, round)
                }
                if let record = claimRecord { XCTAssertEqual(machine.state.coopClaim, record, "the co-signature never changes") }
                claimRecord = machine.state.coopClaim
                if machine.phase.isFinal { break }
            }
            XCTAssertLessThanOrEqual(requests, 3)
        }
    }
}

