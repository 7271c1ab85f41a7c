import Bitcoin
import HTLC
import Offers
@testable import PeerNode
import XCTest

/// The client's `onchain_to_ln` machine against a provider (or a chain) that misbehaves:
/// accepts it must refuse before locking, a funding it must not broadcast, claims that do
/// not prove a payment, a provider that never pays (the refund at the timeout exactly, and
/// bumped), a claim that wins over a pending refund, and repeated or out-of-order inputs.
final class SubmarineClientHostileTests: XCTestCase {
    typealias F = SubmarineClientFixture
    private let fixture = F()
    private let timeout = F.timeout

    private func machine(at phase: SubmarineClientPhase) -> SubmarineClientMachine { fixture.machine(at: phase) }

    private func fundsOrSendsALock(_ actions: [SubmarineClientAction]) -> Bool {
        actions.contains {
            switch $0 {
            case .fundLock, .broadcastLock: return true
            default: return false
            }
        }
    }

    // MARK: the accept: refused before anything is locked

    func testAHostileAcceptIsRefusedBeforeLocking() {
        let good = fixture.accept
        var cases: [(String, Signed<SubmarineSwapAccept>, String)] = []
        // The provider's key in the refund path and the client's in the claim path.
        let swapped = F.contract(.taprootBoltz, claimKey: F.clientRefundKey.publicKey, refundKey: F.providerClaimKey.publicKey,
                                 roles: .submarine)
        var accept = good
        accept.claimPublicKey = F.clientRefundKey.publicKey
        accept.refundPublicKey = F.providerClaimKey.publicKey
        accept.htlcAddress = swapped.encodedAddress
        accept.scripts = SwapAccept.Scripts(contract: swapped)
        cases.append(("the roles swapped", fixture.signed(accept), "refund_pubkey is not ours"))
        // The same keys as a reverse contract (claim = client): another address.
        let reverse = F.contract(.taprootBoltz, claimKey: F.providerClaimKey.publicKey, refundKey: F.clientRefundKey.publicKey,
                                 roles: .reverse)
        accept = good
        accept.htlcAddress = reverse.encodedAddress
        accept.scripts = SwapAccept.Scripts(contract: reverse)
        cases.append(("a reverse contract of the same keys", fixture.signed(accept), "HTLC address"))
        // Another hash, with a contract consistently built on it.
        let otherHash = SHA256.hash([UInt8](repeating: 0x09, count: 32))
        let wrongHash = F.contract(.taprootBoltz, claimKey: F.providerClaimKey.publicKey, refundKey: F.clientRefundKey.publicKey,
                                   roles: .submarine, hash: otherHash)
        accept = SubmarineSwapAccept(requestID: good.requestID, swapID: good.swapID, quoteID: good.quoteID,
                                     amountSat: good.amountSat, totalSat: good.totalSat, contract: wrongHash)
        cases.append(("a wrong hash", fixture.signed(accept), "payment_hash is not the invoice's"))
        accept = good
        accept.totalSat -= 1
        cases.append(("a smaller lock", fixture.signed(accept), "total_sat is not the quote's"))
        accept = good
        accept.totalSat += 1
        cases.append(("a larger lock", fixture.signed(accept), "total_sat is not the quote's"))
        accept = good
        accept.amountSat -= 1
        cases.append(("another invoice amount", fixture.signed(accept), "amount_sat is not the quote's"))
        cases.append(("signed by another node", fixture.signed(good, by: F.stranger), "signature"))
        // A far timeout: the refund would wait longer than agreed.
        let far = F.contract(.taprootBoltz, claimKey: F.providerClaimKey.publicKey, refundKey: F.clientRefundKey.publicKey,
                             roles: .submarine, timeout: F.timeout + 50)
        accept = SubmarineSwapAccept(requestID: good.requestID, swapID: good.swapID, quoteID: good.quoteID,
                                     amountSat: good.amountSat, totalSat: good.totalSat, contract: far)
        cases.append(("a far timeout", fixture.signed(accept), "timeout"))

        for (what, signed, reason) in cases {
            var machine = SubmarineClientMachine(settings: fixture.settings())
            let actions = machine.handle(.acceptReceived(signed, tipHeight: F.acceptTip))
            XCTAssertEqual(actions, [.persist(machine.state), .finish], what)
            XCTAssertEqual(machine.phase, .abandoned, what)
            XCTAssertEqual(machine.state.outcome?.funds, .neverLocked, what)
            XCTAssertNil(machine.state.contract, what)
            XCTAssertTrue(machine.state.outcome?.reason.contains(reason) ?? false,
                          "\(what): \(machine.state.outcome?.reason ?? "no outcome")")
            XCTAssertEqual(machine.handle(.lockFunded(fixture.funding())), [], "\(what): nothing is funded after the refusal")
        }
    }

    func testAnHonestAcceptAtATipTooCloseToItsTimeoutIsRefused() {
        var machine = SubmarineClientMachine(settings: fixture.settings())
        XCTAssertEqual(machine.handle(.acceptReceived(fixture.signed(fixture.accept), tipHeight: F.acceptTip + 20)),
                       [.persist(machine.state), .finish])
        XCTAssertEqual(machine.phase, .abandoned)
    }

    func testAFundingThatDoesNotPayTheContractExactlyIsNeverBroadcast() {
        let total = fixture.quote.totalSat
        let cases: [(String, Transaction, String)] = [
            ("one sat short", fixture.funding(lockValue: total - 1), "pays the contract 20809 sat, not the agreed 20810 sat"),
            ("one sat over", fixture.funding(lockValue: total + 1), "pays the contract 20811 sat, not the agreed 20810 sat"),
            ("two lock outputs", fixture.funding(extraLockOutput: true), "has 2 outputs paying the contract, not 1"),
            ("no lock output", Transaction(version: 2, inputs: fixture.funding().inputs,
                                           outputs: [TransactionOutput(value: total, scriptPubKey: F.walletAddress.script)]),
             "has 0 outputs paying the contract, not 1"),
        ]
        for (what, funding, reason) in cases {
            var machine = machine(at: .accepted)
            let actions = machine.handle(.lockFunded(funding))
            XCTAssertEqual(actions, [.persist(machine.state), .finish], what)
            XCTAssertFalse(fundsOrSendsALock(actions), what)
            XCTAssertEqual(machine.phase, .abandoned, what)
            XCTAssertNil(machine.state.funding, what)
            XCTAssertEqual(machine.state.outcome?.reason, "the funding transaction \(reason); it was not broadcast", what)
        }
        var failing = machine(at: .accepted)
        XCTAssertEqual(failing.handle(.fundingFailed("0 sat confirmed")), [.persist(failing.state), .finish])
        XCTAssertEqual(failing.state.outcome, SubmarineClientOutcome(reason: "the lock could not be funded: 0 sat confirmed",
                                                                     funds: .neverLocked))
    }

    // MARK: claims that prove nothing, and claims of any shape

    func testAClaimWithAWrongPreimageIsIgnoredAndTheRefundStillHappens() {
        var machine = machine(at: .lockConfirmed)
        let wrong = [UInt8](repeating: 0x0b, count: 32)
        let forged = fixture.rewitnessed(fixture.claim()) { stack in
            stack = stack.map { $0 == F.preimage ? wrong : $0 }
        }
        XCTAssertEqual(machine.handle(.lockSpent(forged, confirmations: 0)), [])
        XCTAssertEqual(machine.handle(.lockSpent(forged, confirmations: 1)), [])
        XCTAssertEqual(machine.phase, .lockConfirmed)
        XCTAssertNil(machine.state.preimage)
        XCTAssertEqual(machine.handle(.preimageLearned(wrong, source: .providerStatus)), [])
        XCTAssertEqual(machine.handle(.block(height: timeout)), [.checkChain, .buildRefund(fixture.lock)])
    }

    func testAClaimIsReadWhateverItsWitnessShape() {
        for type in F.offeredTypes {
            let fixture = F(type)
            var shapes: [(String, Transaction)] = [("as built", fixture.claim())]
            switch type {
            case .taprootBoltz:
                // An annex (BIP341): the script never sees it; consensus lets it be there.
                shapes.append(("with an annex", fixture.rewitnessed(fixture.claim()) { $0.append([0x50, 0x01, 0x02]) }))
            case .p2wsh, .p2wshUnsized:
                // Any true value selects OP_IF: a non-minimal 0x02 instead of 0x01.
                shapes.append(("a non-minimal selector", fixture.rewitnessed(fixture.claim()) { $0[$0.count - 2] = [0x02] }))
            }
            for (shape, claim) in shapes {
                var machine = SubmarineClientMachine(settings: fixture.settings())
                _ = machine.handle(.acceptReceived(fixture.signed(fixture.accept), tipHeight: F.acceptTip))
                _ = machine.handle(.lockFunded(fixture.funding()))
                XCTAssertEqual(machine.handle(.lockSpent(claim, confirmations: 1)),
                               [.persist(machine.state), .reportPaid(preimage: F.preimage)], "\(type) \(shape)")
                XCTAssertEqual(machine.phase, .paid, "\(type) \(shape)")
                XCTAssertEqual(machine.state.preimage, F.preimage)
            }
        }
    }

    func testASpendOfAnotherOutpointIsNotTheLocksSpend() {
        var machine = machine(at: .lockConfirmed)
        var elsewhere = fixture.claim()
        elsewhere.inputs[0].previousOutput = OutPoint(txid: fixture.lock.outPoint.txid, index: 1)
        XCTAssertEqual(machine.handle(.lockSpent(elsewhere, confirmations: 1)), [])
        XCTAssertEqual(machine.phase, .lockConfirmed)
    }

    // MARK: a provider that never pays

    func testAProviderThatNeverPaysIsRefundedFromTheTimeoutExactlyAndBumped() {
        var machine = machine(at: .lockConfirmed)
        let refund = fixture.refund()
        XCTAssertEqual(refund.lockTime, UInt32(timeout), "the refund is valid only in a block above the timeout")
        XCTAssertEqual(machine.handle(.block(height: timeout - 1)), [.checkChain], "one block early: nothing")
        XCTAssertEqual(machine.handle(.refundSigned(refund)), [], "a refund offered before the timeout is not recorded")
        XCTAssertEqual(machine.handle(.block(height: timeout)), [.checkChain, .buildRefund(fixture.lock)])
        XCTAssertEqual(machine.handle(.refundSigned(refund)), [.persist(machine.state), .broadcastRefund(refund)])
        XCTAssertEqual(machine.phase, .refundBroadcast)
        XCTAssertEqual(machine.state.refund, refund)

        XCTAssertEqual(machine.handle(.block(height: timeout + 1)),
                       [.checkChain, .bumpRefund(previous: refund, tipHeight: timeout + 1)])
        let bump = fixture.refund(satPerVByte: 5)
        XCTAssertEqual(machine.handle(.refundSigned(bump)), [.persist(machine.state), .broadcastRefund(bump)])
        XCTAssertEqual(machine.state.refundTxids, [refund.txid, bump.txid])
        XCTAssertEqual(machine.handle(.refundSigned(refund)), [], "a cheaper version is no bump")
        XCTAssertEqual(machine.handle(.refundSigned(bump)), [], "nor is the same one again")
        XCTAssertEqual(machine.handle(.block(height: timeout + 2)),
                       [.checkChain, .bumpRefund(previous: bump, tipHeight: timeout + 2)])

        // The first version is the one mined: it counts, and the state names it for the books.
        XCTAssertEqual(machine.handle(.refundConfirmations(refund.txid, 1)), [.persist(machine.state)])
        XCTAssertEqual(machine.state.minedRefundTxid, refund.txid)
        XCTAssertEqual(machine.handle(.block(height: timeout + 3)), [.checkChain], "confirmed: no more bumps")
        XCTAssertEqual(machine.handle(.refundConfirmations(refund.txid, 2)), [.persist(machine.state), .finish])
        XCTAssertEqual(machine.phase, .refunded)
        XCTAssertEqual(machine.state.outcome?.funds, .refunded)
        XCTAssertEqual(try SubmarineClientState(kind: "refunded", data: machine.state.json).minedRefundTxid, refund.txid,
                       "the stored form keeps it")
    }

    /// The last version mined needs no note; an earlier one reorged out, or beaten by a
    /// claim, is no longer the one that paid.
    func testTheMinedRefundVersionIsNotedOnlyWhenItIsAnEarlierOne() {
        let (refund, bump) = (fixture.refund(), fixture.refund(satPerVByte: 5))
        func bumped() -> SubmarineClientMachine {
            var machine = machine(at: .lockConfirmed)
            _ = machine.handle(.block(height: timeout))
            _ = machine.handle(.refundSigned(refund))
            _ = machine.handle(.block(height: timeout + 1))
            _ = machine.handle(.refundSigned(bump))
            return machine
        }
        var latest = bumped()
        _ = latest.handle(.refundConfirmations(bump.txid, 1))
        XCTAssertNil(latest.state.minedRefundTxid)
        var earlier = bumped()
        _ = earlier.handle(.lockSpent(refund, confirmations: 1))
        XCTAssertEqual(earlier.state.minedRefundTxid, refund.txid, "read from the spend of the lock too")
        _ = earlier.handle(.refundConfirmations(refund.txid, 0))
        XCTAssertNil(earlier.state.minedRefundTxid, "reorged out")
        _ = earlier.handle(.refundConfirmations(refund.txid, 1))
        XCTAssertEqual(earlier.state.minedRefundTxid, refund.txid)
        _ = earlier.handle(.lockUnspent)
        XCTAssertNil(earlier.state.minedRefundTxid, "the lock is unspent again")
    }

    func testARefundThatCouldNotEnterTheNextBlockIsNotRecorded() {
        var machine = machine(at: .lockConfirmed)
        _ = machine.handle(.block(height: timeout))
        var late = fixture.refund()
        late.lockTime = UInt32(timeout + 5)
        XCTAssertEqual(machine.handle(.refundSigned(late)), [], "nLockTime above the tip: not valid in the next block")
        var elsewhere = fixture.refund()
        elsewhere.inputs[0].previousOutput = OutPoint(txid: fixture.lock.outPoint.txid, index: 1)
        XCTAssertEqual(machine.handle(.refundSigned(elsewhere)), [], "it does not spend the lock")
        XCTAssertEqual(machine.phase, .lockConfirmed)
        XCTAssertEqual(machine.handle(.refundSigned(fixture.refund())), [.persist(machine.state), .broadcastRefund(fixture.refund())])
    }

    func testAnUnconfirmedLockIsRefundedFromTheTimeoutToo() {
        var machine = machine(at: .lockBroadcast)
        XCTAssertEqual(machine.handle(.block(height: timeout)),
                       [.broadcastLock(fixture.funding()), .checkChain, .buildRefund(fixture.lock)])
    }

    func testAClaimWhileTheRefundIsPendingWins() {
        var machine = machine(at: .refundBroadcast)
        let claim = fixture.claim()
        XCTAssertEqual(machine.handle(.lockSpent(claim, confirmations: 0)),
                       [.persist(machine.state), .reportPaid(preimage: F.preimage)])
        XCTAssertEqual(machine.phase, .paid)
        XCTAssertEqual(machine.handle(.block(height: timeout + 1)), [.checkChain], "no bump against the claim")
        XCTAssertEqual(machine.handle(.refundSigned(fixture.refund(satPerVByte: 9))), [], "no refund fights a claim")
        XCTAssertEqual(machine.handle(.lockSpent(claim, confirmations: 2)), [.persist(machine.state), .finish])
        XCTAssertEqual(machine.phase, .completed)
        XCTAssertEqual(machine.state.outcome?.funds, .delivered)
    }

    func testAClaimThatLeavesTheMempoolLetsTheRecordedRefundRunAgain() {
        var machine = machine(at: .refundBroadcast)
        let refund = fixture.refund()
        _ = machine.handle(.lockSpent(fixture.claim(), confirmations: 0))
        XCTAssertEqual(machine.handle(.lockUnspent), [.persist(machine.state)])
        var expected = machine.state
        expected.phase = .refundBroadcast
        expected.tipHeight = timeout + 1
        XCTAssertEqual(machine.handle(.block(height: timeout + 1)), [.persist(expected), .broadcastRefund(refund), .checkChain])
        XCTAssertEqual(machine.phase, .refundBroadcast)
    }

    func testAPreimageHeardAfterTheRefundWentOutIsRecordedButTheRefundGoesOn() {
        var machine = machine(at: .refundBroadcast)
        XCTAssertEqual(machine.handle(.preimageLearned(F.preimage, source: .providerStatus)),
                       [.persist(machine.state), .reportPaid(preimage: F.preimage)])
        XCTAssertEqual(machine.phase, .refundBroadcast)
        XCTAssertEqual(machine.handle(.block(height: timeout + 1)),
                       [.checkChain, .bumpRefund(previous: fixture.refund(), tipHeight: timeout + 1)])
    }

    func testOurRefundFoundOnChainWithoutItsRecordCounts() {
        var machine = machine(at: .lockConfirmed)
        let refund = fixture.refund()
        XCTAssertEqual(machine.handle(.lockSpent(refund, confirmations: 1)), [.persist(machine.state)])
        XCTAssertEqual(machine.phase, .refundBroadcast)
        XCTAssertEqual(machine.state.refundTxids, [refund.txid])
        XCTAssertEqual(machine.handle(.lockSpent(refund, confirmations: 2)), [.persist(machine.state), .finish])
        XCTAssertEqual(machine.phase, .refunded)
    }

    func testAFundingWhoseInputsWentElsewhereEndsOnlyOnceTheConflictIsFinal() {
        for start in [SubmarineClientPhase.lockIntent, .lockBroadcast] {
            var machine = machine(at: start)
            XCTAssertEqual(machine.handle(.fundingConflicted(confirmations: 0)), [], "a mempool conflict may still lose")
            XCTAssertEqual(machine.handle(.fundingConflicted(confirmations: 1)), [], "a reorg may still bring the lock back")
            XCTAssertEqual(machine.phase, start)
            XCTAssertEqual(machine.handle(.fundingConflicted(confirmations: 2)), [.persist(machine.state), .finish])
            XCTAssertEqual(machine.phase, .abandoned)
            XCTAssertEqual(machine.state.outcome?.funds, .neverLocked)
        }
        // Once the lock is in a block, or spent, no conflict can undo it.
        for start in [SubmarineClientPhase.lockConfirmed, .paid, .refundBroadcast] {
            var machine = machine(at: start)
            XCTAssertEqual(machine.handle(.fundingConflicted(confirmations: 6)), [], "\(start)")
            XCTAssertEqual(machine.phase, start)
        }
    }

    // MARK: repeated and out-of-order inputs

    func testRepeatedInputsChangeNothing() {
        var machine = machine(at: .accepted)
        XCTAssertEqual(machine.handle(.acceptReceived(fixture.signed(fixture.accept), tipHeight: F.acceptTip)), [])
        _ = machine.handle(.lockFunded(fixture.funding()))
        XCTAssertEqual(machine.handle(.lockFunded(fixture.funding())), [])
        XCTAssertEqual(machine.handle(.acceptReceived(fixture.signed(fixture.accept), tipHeight: F.acceptTip)), [])
        XCTAssertEqual(machine.handle(.refused("late")), [], "a refusal after the lock is recorded ends nothing")
        XCTAssertEqual(machine.handle(.fundingFailed("late")), [])
        _ = machine.handle(.lockBroadcastAccepted)
        XCTAssertEqual(machine.handle(.lockBroadcastAccepted), [])
        _ = machine.handle(.lockConfirmations(1))
        XCTAssertEqual(machine.handle(.lockConfirmations(1)), [])
        XCTAssertEqual(machine.handle(.block(height: 1_005)), [.checkChain])
        XCTAssertEqual(machine.handle(.block(height: 1_005)), [], "the same block again")
        XCTAssertEqual(machine.handle(.block(height: 1_004)), [], "an older block")
        XCTAssertEqual(machine.handle(.refundConfirmations(fixture.refund().txid, 3)), [], "no refund of ours is known")
        let claim = fixture.claim()
        _ = machine.handle(.lockSpent(claim, confirmations: 1))
        XCTAssertEqual(machine.handle(.lockSpent(claim, confirmations: 1)), [])
        XCTAssertEqual(machine.handle(.preimageLearned(F.preimage, source: .settledInvoice)), [])
        let final = machine.handle(.lockSpent(claim, confirmations: 2))
        XCTAssertEqual(final.last, .finish)
        let ended = machine.state
        for input: SubmarineClientInput in [.lockSpent(claim, confirmations: 3), .block(height: timeout + 5),
                                            .recover(tipHeight: nil), .lockUnspent, .lockConfirmations(0)] {
            XCTAssertEqual(machine.handle(input), [], "after the end: \(input)")
        }
        XCTAssertEqual(machine.state, ended)
    }

    func testOutOfOrderInputs() {
        // Confirmations before the node's acceptance of the broadcast: the lock is confirmed.
        var machine = machine(at: .lockIntent)
        XCTAssertEqual(machine.handle(.lockConfirmations(1)), [.persist(machine.state)])
        XCTAssertEqual(machine.phase, .lockConfirmed)
        XCTAssertEqual(machine.handle(.lockBroadcastAccepted), [])
        // The claim seen before the lock's confirmations were read.
        var early = self.machine(at: .lockIntent)
        XCTAssertEqual(early.handle(.lockSpent(fixture.claim(), confirmations: 0)),
                       [.persist(early.state), .reportPaid(preimage: F.preimage)])
        XCTAssertEqual(early.phase, .paid)
        XCTAssertEqual(early.handle(.block(height: 1_001)), [.checkChain], "a spent lock is not sent again")
        // Chain news before any lock exists changes nothing.
        var before = self.machine(at: .accepted)
        for input: SubmarineClientInput in [.lockConfirmations(1), .lockSpent(fixture.claim(), confirmations: 1),
                                            .preimageLearned(F.preimage, source: .providerStatus), .block(height: timeout),
                                            .refundSigned(fixture.refund()), .lockBroadcastAccepted] {
            XCTAssertEqual(before.handle(input), [], "in accepted: \(input)")
        }
        XCTAssertEqual(before.phase, .accepted)
    }
}
