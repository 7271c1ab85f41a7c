import Bitcoin
import HTLC
import Offers
@testable import PeerNode
import XCTest

/// The client's `onchain_to_ln` machine, transition by transition: the happy path with
/// every record before its act, each phase against `recover` (a crash anywhere), the
/// preimage from each source, reorgs of the lock and of the claim. No I/O: what the machine
/// asks for is what is checked, action list by action list.
final class SubmarineClientMachineTests: XCTestCase {
    typealias F = SubmarineClientFixture
    /// Cooperative (its request lists `musig2`): the same swap as without, plus the
    /// rounds' phases, which only the rounds' inputs reach.
    private let fixture = F(.taprootBoltz, cooperative: true)
    private let timeout = F.timeout

    private func machine(at phase: SubmarineClientPhase) -> SubmarineClientMachine { fixture.machine(at: phase) }

    // MARK: the happy path

    func testHappyPathRecordsEachStepBeforeItsActForBothContractTypes() {
        for type in F.offeredTypes {
            let fixture = F(type)
            var machine = SubmarineClientMachine(settings: fixture.settings())
            XCTAssertEqual(machine.handle(.acceptReceived(fixture.signed(fixture.accept), tipHeight: F.acceptTip)),
                           [.persist(machine.state), .fundLock(fixture.contract, amountSat: 20_810)], "\(type)")
            XCTAssertEqual(machine.phase, .accepted)
            XCTAssertEqual(machine.state.contract, fixture.contract)
            XCTAssertEqual(machine.state.timeoutHeight, F.timeout)

            let funding = fixture.funding()
            let intent = machine.handle(.lockFunded(funding))
            XCTAssertEqual(intent, [.persist(machine.state), .broadcastLock(funding)], "the funding is on disk before it goes out")
            XCTAssertEqual(machine.phase, .lockIntent)
            XCTAssertEqual(machine.state.funding, funding)
            XCTAssertEqual(machine.state.lock, fixture.lock)

            XCTAssertEqual(machine.handle(.lockBroadcastAccepted), [.persist(machine.state)])
            XCTAssertEqual(machine.phase, .lockBroadcast)
            XCTAssertEqual(machine.handle(.block(height: 1_001)), [.broadcastLock(funding), .checkChain],
                           "an unconfirmed lock is sent again each block")
            XCTAssertEqual(machine.handle(.lockConfirmations(1)), [.persist(machine.state)])
            XCTAssertEqual(machine.phase, .lockConfirmed)
            XCTAssertEqual(machine.handle(.block(height: 1_002)), [.checkChain])

            let claim = fixture.claim()
            XCTAssertEqual(machine.handle(.lockSpent(claim, confirmations: 0)),
                           [.persist(machine.state), .reportPaid(preimage: F.preimage)])
            XCTAssertEqual(machine.phase, .paid)
            XCTAssertEqual(machine.state.preimage, F.preimage)
            XCTAssertEqual(machine.state.preimageSource, .claim)
            XCTAssertEqual(machine.state.claimTxid, claim.txid)
            XCTAssertEqual(machine.handle(.block(height: 1_003)), [.checkChain])
            XCTAssertEqual(machine.handle(.lockSpent(claim, confirmations: 1)), [.persist(machine.state)])
            XCTAssertEqual(machine.handle(.lockSpent(claim, confirmations: 2)), [.persist(machine.state), .finish])
            XCTAssertEqual(machine.phase, .completed)
            XCTAssertEqual(machine.state.outcome?.funds, .delivered)
            XCTAssertEqual(machine.handle(.block(height: F.timeout + 1)), [], "nothing after the end: no refund")
        }
    }

    func testTheLockIsConfirmedOnlyAtTheQuotesConfirmations() {
        let base = fixture.quote
        let quote = Quote(requestID: base.requestID, quoteID: base.quoteID, offerID: base.offerID, direction: .onchainToLightning,
                          amountSat: base.amountSat, serviceFeeSat: base.serviceFeeSat, onchainFeeSat: base.onchainFeeSat,
                          feeRateSatPerVByte: 2, htlcTimeoutBlocks: 144, requiredConfirmations: 3,
                          validUntilUnix: base.validUntilUnix, paymentHash: F.paymentHash)
        let terms = SubmarineClientTerms(provider: F.provider.pubky, quote: quote, request: fixture.request,
                                         invoicePaymentHash: F.paymentHash, network: .regtest)
        var machine = SubmarineClientMachine(settings: .init(terms: terms))
        _ = machine.handle(.acceptReceived(fixture.signed(fixture.accept), tipHeight: F.acceptTip))
        _ = machine.handle(.lockFunded(fixture.funding()))
        XCTAssertEqual(machine.handle(.lockConfirmations(2)), [.persist(machine.state)])
        XCTAssertEqual(machine.phase, .lockBroadcast, "2 of 3: the node holds it, not yet confirmed")
        XCTAssertEqual(machine.state.lockConfirmations, 2)
        XCTAssertEqual(machine.handle(.lockConfirmations(3)), [.persist(machine.state)])
        XCTAssertEqual(machine.phase, .lockConfirmed)
    }

    // MARK: the preimage, from each source

    func testAPreimageFromTheSettledInvoiceOrAStatusIsTheProofOfPayment() {
        for source in [SubmarineClientState.PreimageSource.settledInvoice, .providerStatus] {
            for start in [SubmarineClientPhase.lockIntent, .lockBroadcast, .lockConfirmed] {
                var machine = machine(at: start)
                XCTAssertEqual(machine.handle(.preimageLearned([UInt8](repeating: 0x08, count: 32), source: source)), [],
                               "a value that does not hash to the payment hash is ignored")
                XCTAssertEqual(machine.handle(.preimageLearned(Array(F.preimage.dropLast()), source: source)), [])
                XCTAssertEqual(machine.phase, start)
                XCTAssertEqual(machine.handle(.preimageLearned(F.preimage, source: source)),
                               [.persist(machine.state), .reportPaid(preimage: F.preimage)], "\(source) in \(start)")
                XCTAssertEqual(machine.phase, .paid)
                XCTAssertEqual(machine.state.preimageSource, source)
                XCTAssertEqual(machine.handle(.preimageLearned(F.preimage, source: .claim)), [], "once is enough")
            }
        }
    }

    func testPaidCompletesOnlyWhenTheClaimIsDeep() {
        var machine = machine(at: .paid)
        let claim = fixture.claim()
        XCTAssertEqual(machine.handle(.lockSpent(claim, confirmations: 1)), [.persist(machine.state)],
                       "the preimage is known already: no second report")
        XCTAssertEqual(machine.phase, .paid)
        XCTAssertEqual(machine.state.preimageSource, .providerStatus)
        XCTAssertEqual(machine.handle(.lockSpent(claim, confirmations: 2)), [.persist(machine.state), .finish])
        XCTAssertEqual(machine.phase, .completed)
    }

    func testAClaimFirstSeenDeepCompletesAndStillReportsTheProof() {
        var machine = machine(at: .lockConfirmed)
        XCTAssertEqual(machine.handle(.lockSpent(fixture.claim(), confirmations: 2)),
                       [.persist(machine.state), .reportPaid(preimage: F.preimage), .finish])
        XCTAssertEqual(machine.phase, .completed)
        XCTAssertEqual(machine.state.preimage, F.preimage)
    }

    // MARK: crash at each phase

    func testRecoverInEveryPhase() {
        let funding = fixture.funding()
        let refund = fixture.refund()
        // A refund round's nonce died with the process: the round ends, never resumed.
        var roundEnded = machine(at: .coopRefundRequested).state
        roundEnded.phase = .lockConfirmed
        roundEnded.coopRefundFallback = "the node restarted during the round (its nonce is gone)"
        let rows: [(SubmarineClientPhase, SubmarineClientPhase, [SubmarineClientAction]?)] = [
            (.coopSigned, .coopSigned, [.checkChain]),
            (.coopRefundRequested, .lockConfirmed, [.persist(roundEnded), .checkChain]),
            (.quoted, .abandoned, nil),
            (.accepted, .abandoned, nil),
            (.lockIntent, .lockIntent, [.broadcastLock(funding), .checkChain]),
            (.lockBroadcast, .lockBroadcast, [.broadcastLock(funding), .checkChain]),
            (.lockConfirmed, .lockConfirmed, [.checkChain]),
            (.paid, .paid, [.checkChain]),
            (.refundBroadcast, .refundBroadcast, [.broadcastRefund(refund), .checkChain]),
            (.completed, .completed, []),
            (.refunded, .refunded, []),
            (.abandoned, .abandoned, []),
        ]
        XCTAssertEqual(Set(rows.map(\.0)), Set(SubmarineClientPhase.allCases), "every phase has a recover row")
        for (phase, next, expected) in rows {
            // A restart: a new machine from the stored state alone.
            var restarted = SubmarineClientMachine(settings: fixture.settings(), state: machine(at: phase).state)
            let actions = restarted.handle(.recover(tipHeight: nil))
            XCTAssertEqual(restarted.phase, next, "recover in \(phase)")
            if let expected {
                XCTAssertEqual(actions, expected, "recover in \(phase)")
            } else {
                XCTAssertEqual(actions, [.persist(restarted.state), .finish], "recover in \(phase)")
                XCTAssertEqual(restarted.state.outcome?.funds, .neverLocked)
            }
            XCTAssertFalse(actions.contains { if case .fundLock = $0 { return true } else { return false } },
                           "a restart never funds a lock: \(phase)")
        }
    }

    func testACrashAtLockIntentSendsTheSameFundingAndNeverFundsAgain() {
        let stored = machine(at: .lockIntent).state
        var restarted = SubmarineClientMachine(settings: fixture.settings(), state: stored)
        XCTAssertEqual(restarted.handle(.recover(tipHeight: nil)), [.broadcastLock(fixture.funding()), .checkChain])
        XCTAssertEqual(restarted.handle(.lockFunded(fixture.funding(tag: 0xb2))), [], "a second funding is never recorded")
        XCTAssertEqual(restarted.state.funding, fixture.funding())
        XCTAssertEqual(restarted.handle(.block(height: 1_001)), [.broadcastLock(fixture.funding()), .checkChain])
    }

    /// SUB-LIQ-2: the provider gives a swap up when no lock is seen within
    /// `SubmarineRules.lockWaitBlocks` (24) of the accept (tip 1,000 here): a funding the
    /// node never took goes out until 3 blocks before that (tip 1,021), and from then on
    /// its inputs are taken back instead, at a restart (the tip read then) or at a block.
    /// A funding the node took is sent again as before: the provider may be waiting on it.
    func testAFundingTheNodeNeverTookIsTakenBackOnceTheProviderNoLongerWaitsForIt() {
        let funding = fixture.funding()
        let last = SubmarineRules.lastLockBroadcastHeight(timeoutHeight: UInt32(timeout), htlcTimeoutBlocks: 144)
        XCTAssertEqual(last, F.acceptTip + 24 - 3)
        let stored = machine(at: .lockIntent).state
        var inTime = SubmarineClientMachine(settings: fixture.settings(), state: stored)
        XCTAssertEqual(inTime.handle(.recover(tipHeight: last)), [.broadcastLock(funding), .checkChain])
        var late = SubmarineClientMachine(settings: fixture.settings(), state: stored)
        XCTAssertEqual(late.handle(.recover(tipHeight: last + 1)), [.takeBackFunding(funding), .checkChain],
                       "a restart long after the accept does not send the lock")
        XCTAssertEqual(late.handle(.block(height: last + 2)), [.takeBackFunding(funding), .checkChain], "nor a later block")
        XCTAssertEqual(late.phase, .lockIntent)

        // Every broadcast refused while the blocks went by: the same cut-off.
        var refused = machine(at: .lockIntent)
        XCTAssertEqual(refused.handle(.block(height: last)), [.broadcastLock(funding), .checkChain])
        XCTAssertEqual(refused.handle(.block(height: last + 1)), [.takeBackFunding(funding), .checkChain])

        // The withdrawal is final: no lock will ever exist.
        XCTAssertEqual(late.handle(.fundingConflicted(confirmations: 1)), [], "not final yet")
        let actions = late.handle(.fundingConflicted(confirmations: 2))
        XCTAssertEqual(actions, [.persist(late.state), .finish])
        XCTAssertEqual(late.phase, .abandoned)
        XCTAssertEqual(late.state.outcome?.funds, .neverLocked)

        // The withdrawal lost the race (the lock was out before the crash and got mined):
        // the swap goes on from the lock as any other.
        var mined = SubmarineClientMachine(settings: fixture.settings(), state: stored)
        _ = mined.handle(.recover(tipHeight: last + 1))
        _ = mined.handle(.lockConfirmations(1))
        XCTAssertEqual(mined.phase, .lockConfirmed)

        // The node took the lock: it is sent again at any height (the provider may have
        // seen it in time), never taken back.
        var taken = machine(at: .lockBroadcast)
        XCTAssertEqual(taken.handle(.recover(tipHeight: last + 10)), [.broadcastLock(funding), .checkChain])
        XCTAssertEqual(taken.handle(.block(height: last + 11)), [.broadcastLock(funding), .checkChain])
    }

    func testACrashWhileRefundingKeepsBumpingTheRecordedVersions() {
        var restarted = SubmarineClientMachine(settings: fixture.settings(), state: machine(at: .refundBroadcast).state)
        let refund = fixture.refund()
        XCTAssertEqual(restarted.handle(.recover(tipHeight: nil)), [.broadcastRefund(refund), .checkChain])
        XCTAssertEqual(restarted.handle(.block(height: timeout + 1)),
                       [.checkChain, .bumpRefund(previous: refund, tipHeight: timeout + 1)])
        XCTAssertEqual(restarted.handle(.refundConfirmations(refund.txid, 2)), [.persist(restarted.state), .finish])
        XCTAssertEqual(restarted.phase, .refunded)
    }

    // MARK: reorgs

    func testALockReorgedOutIsSentAgainAsRecorded() {
        var machine = machine(at: .lockConfirmed)
        XCTAssertEqual(machine.handle(.lockConfirmations(0)), [.persist(machine.state), .broadcastLock(fixture.funding())])
        XCTAssertEqual(machine.phase, .lockBroadcast)
        XCTAssertEqual(machine.handle(.block(height: 1_010)), [.broadcastLock(fixture.funding()), .checkChain])
        XCTAssertEqual(machine.handle(.lockConfirmations(1)), [.persist(machine.state)])
        XCTAssertEqual(machine.phase, .lockConfirmed)
    }

    func testALockReorgedOutAfterThePaymentIsSentAgainForTheProvider() {
        var machine = machine(at: .paid)
        XCTAssertEqual(machine.handle(.lockConfirmations(0)), [.persist(machine.state), .broadcastLock(fixture.funding())],
                       "the provider paid for this lock: it goes out again as recorded")
        XCTAssertEqual(machine.phase, .paid)
        XCTAssertEqual(machine.handle(.block(height: 1_020)), [.broadcastLock(fixture.funding()), .checkChain])
        XCTAssertEqual(machine.handle(.lockConfirmations(1)), [])
        XCTAssertEqual(machine.handle(.block(height: 1_021)), [.checkChain])
    }

    func testAClaimReorgedOutIsWatchedAndTheRefundWaitsForTheTimeout() {
        var machine = machine(at: .lockConfirmed)
        let claim = fixture.claim()
        _ = machine.handle(.lockSpent(claim, confirmations: 1))
        XCTAssertEqual(machine.phase, .paid)
        XCTAssertEqual(machine.handle(.lockUnspent), [.persist(machine.state)])
        XCTAssertEqual(machine.phase, .paid, "the preimage stays the proof of payment")
        XCTAssertNil(machine.state.claimTxid)
        XCTAssertEqual(machine.state.preimage, F.preimage)
        XCTAssertEqual(machine.handle(.block(height: timeout - 1)), [.checkChain], "no refund before the timeout")
        XCTAssertEqual(machine.handle(.lockSpent(claim, confirmations: 0)), [.persist(machine.state)], "back in the mempool")
        XCTAssertEqual(machine.handle(.block(height: timeout)), [.checkChain], "a claim is out: no refund fights it")
        XCTAssertEqual(machine.handle(.lockUnspent), [.persist(machine.state)])
        XCTAssertEqual(machine.handle(.block(height: timeout + 1)), [.checkChain, .buildRefund(fixture.lock)],
                       "the lock is unspent past the timeout: the refund runs")
    }

    func testARefundReorgedOutIsSentAgain() {
        var machine = machine(at: .refundBroadcast)
        let refund = fixture.refund()
        XCTAssertEqual(machine.handle(.refundConfirmations(refund.txid, 1)), [.persist(machine.state)])
        XCTAssertEqual(machine.handle(.refundConfirmations(refund.txid, 0)), [.persist(machine.state), .broadcastRefund(refund)])
        XCTAssertEqual(machine.phase, .refundBroadcast)
    }
}
