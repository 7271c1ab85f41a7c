import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import XCTest

/// The provider's state machine as tables: every state's answer to `.recover`, the happy
/// path, the refund path, the checks before locking, and what final states ignore.
final class ProviderSwapMachineTests: XCTestCase {
    private let preimage = [UInt8](repeating: 0x42, count: 32)
    private lazy var context = ProviderSwapContext(paymentHash: SHA256.hash(preimage), timeoutHeight: 200,
                                                   policy: try! TimelockPolicy(requiredConfirmations: 1, htlcTimeoutBlocks: 40))
    private lazy var machine = ProviderSwapMachine(context: context)

    private static func transaction(_ tag: UInt8, lockTime: UInt32 = 0) -> Transaction {
        Transaction(inputs: [TransactionInput(previousOutput: OutPoint(txid: try! TransactionID(bytes: [UInt8](repeating: tag, count: 32)),
                                                                        index: 0),
                                              sequence: TransactionInput.replaceableSequence)],
                    outputs: [TransactionOutput(value: 100_000, scriptPubKey: Script(bytes: [0x51, 0x20] + [UInt8](repeating: tag, count: 32)))],
                    lockTime: lockTime)
    }

    private let lock = ProviderLock(transaction: transaction(1), outputIndex: 0, fee: 154, height: 160)
    private let refund = ProviderRefund(transaction: transaction(2, lockTime: 200), feeRate: try! FeeRate(satPerKvB: 2_000),
                                        fee: 276, destination: Script(bytes: [0x51, 0x20] + [UInt8](repeating: 9, count: 32)))
    private let bumped = ProviderRefund(transaction: transaction(3, lockTime: 200), feeRate: try! FeeRate(satPerKvB: 3_000),
                                        fee: 414, destination: Script(bytes: [0x51, 0x20] + [UInt8](repeating: 9, count: 32)))

    private let spender = try! TransactionID(bytes: [UInt8](repeating: 7, count: 32))

    private var allStates: [ProviderSwapState] {
        [.invoiceCreated, .invoiceAccepted(htlcExpiry: 300), .fundingIntent(lock), .lockBroadcast(lock), .lockConfirmed(lock),
         .claimObserved(lock, preimage: preimage), .coopSigned(lock, preimage: preimage, claim: ProviderCoopMachineTests.coop),
         .settled, .refundIntent(lock, refund), .refundBroadcast(lock, refund),
         .claimPending(lock, refund, preimage: preimage), .refunded, .cancelled, .lockLost(lock, spendingTxid: spender),
         .refundedAfterHTLCCancel(lock.withHTLCCancelled(at: 170))]
    }

    private func invoice(_ state: InvoiceStatus.State, expiry: UInt32? = nil, tip: UInt32 = 160) -> ProviderSwapInput {
        .invoice(ProviderInvoiceObservation(state: state, heldExpiry: expiry, tipHeight: tip))
    }

    func testEveryStateAnswersRecover() {
        let expected: [(ProviderSwapState, ProviderSwapStep)] = [
            (.invoiceCreated, ProviderSwapStep(actions: [.watchInvoice, .lookupInvoice])),
            (.invoiceAccepted(htlcExpiry: 300), ProviderSwapStep(actions: [.watchInvoice, .lookupInvoice])),
            (.fundingIntent(lock), ProviderSwapStep(actions: [.watchLock(lock)])),
            (.lockBroadcast(lock), ProviderSwapStep(actions: [.watchLock(lock)])),
            (.lockConfirmed(lock), ProviderSwapStep(actions: [.watchLock(lock)])),
            (.claimObserved(lock, preimage: preimage), ProviderSwapStep(actions: [.settleInvoice(preimage: preimage)])),
            (.coopSigned(lock, preimage: preimage, claim: ProviderCoopMachineTests.coop),
             ProviderSwapStep(actions: [.settleInvoice(preimage: preimage)])),
            (.settled, ProviderSwapStep()),
            (.refundIntent(lock, refund), ProviderSwapStep(actions: [.watchLock(lock), .broadcastRefund(refund)])),
            (.refundBroadcast(lock, refund), ProviderSwapStep(actions: [.watchLock(lock), .checkRefund(refund, atBlock: false)])),
            (.claimPending(lock, refund, preimage: preimage),
             ProviderSwapStep(actions: [.watchLock(lock), .checkRefund(refund, atBlock: false)])),
            (.refunded, ProviderSwapStep()),
            (.cancelled, ProviderSwapStep()),
            (.lockLost(lock, spendingTxid: spender), ProviderSwapStep()),
            (.refundedAfterHTLCCancel(lock.withHTLCCancelled(at: 170)), ProviderSwapStep()),
        ]
        XCTAssertEqual(expected.map(\.0.kind), ProviderSwapState.Kind.allCases, "the table covers every state")
        for (state, step) in expected {
            XCTAssertEqual(machine.step(state, .recover), step, "recover in \(state.kind.rawValue)")
        }
    }

    func testHappyPathFromInvoiceToSettled() {
        let table: [(ProviderSwapState, ProviderSwapInput, ProviderSwapStep)] = [
            (.invoiceCreated, invoice(.open), ProviderSwapStep()),
            // Expiry 300 >= 200 + 42, and 200 - 160 = 40 >= 1 + 36 blocks left.
            (.invoiceCreated, invoice(.accepted, expiry: 300),
             ProviderSwapStep(next: .invoiceAccepted(htlcExpiry: 300), actions: [.pushStatus(.invoiceAccepted), .prepareFunding])),
            // The lock is recorded with the HTLC's expiry (audit H-4: the refund's deadline).
            (.invoiceAccepted(htlcExpiry: 300), .fundingPrepared(lock),
             ProviderSwapStep(next: .fundingIntent(lock.with(htlcExpiry: 300)), actions: [.publishLock(lock.with(htlcExpiry: 300))])),
            (.fundingIntent(lock), .lockPublished,
             ProviderSwapStep(next: .lockBroadcast(lock), actions: [.pushStatus(.lockBroadcast), .watchLock(lock)])),
            (.lockBroadcast(lock), .lockSeen(confirmations: 0), ProviderSwapStep()),
            (.lockBroadcast(lock), .lockSeen(confirmations: 1),
             ProviderSwapStep(next: .lockConfirmed(lock), actions: [.pushStatus(.lockConfirmed)])),
            (.lockConfirmed(lock), .lockSeen(confirmations: 2), ProviderSwapStep()),
            (.lockConfirmed(lock), .claimSeen(preimage: preimage, confirmations: 0, txid: spender),
             ProviderSwapStep(next: .claimObserved(lock, preimage: preimage), actions: [.settleInvoice(preimage: preimage)])),
            (.claimObserved(lock, preimage: preimage), .invoiceSettled,
             ProviderSwapStep(next: .settled, actions: [.pushStatus(.settled)])),
            (.claimObserved(lock, preimage: preimage), invoice(.settled),
             ProviderSwapStep(next: .settled, actions: [.pushStatus(.settled)])),
            (.claimObserved(lock, preimage: preimage), .block(height: 170), ProviderSwapStep(actions: [.settleInvoice(preimage: preimage)])),
        ]
        check(table)
    }

    func testLockChecksBeforeFunding() {
        let table: [(ProviderSwapState, ProviderSwapInput, ProviderSwapStep)] = [
            // Expiry 241 < 200 + 42: the client could take its payment back before we settle.
            (.invoiceCreated, invoice(.accepted, expiry: 241),
             ProviderSwapStep(next: .invoiceAccepted(htlcExpiry: 241), actions: [.pushStatus(.invoiceAccepted), .cancelInvoice])),
            (.invoiceCreated, invoice(.accepted, expiry: 242),
             ProviderSwapStep(next: .invoiceAccepted(htlcExpiry: 242), actions: [.pushStatus(.invoiceAccepted), .prepareFunding])),
            // 200 - 164 = 36 < 37 blocks left: the client could not see the lock confirm and claim.
            (.invoiceCreated, invoice(.accepted, expiry: 300, tip: 164),
             ProviderSwapStep(next: .invoiceAccepted(htlcExpiry: 300), actions: [.pushStatus(.invoiceAccepted), .cancelInvoice])),
            (.invoiceAccepted(htlcExpiry: 300), invoice(.accepted, expiry: 300, tip: 163), ProviderSwapStep(actions: [.prepareFunding])),
            (.invoiceAccepted(htlcExpiry: 300), invoice(.accepted, expiry: 300, tip: 164), ProviderSwapStep(actions: [.cancelInvoice])),
            (.invoiceAccepted(htlcExpiry: 300), .fundingFailed(retryable: false), ProviderSwapStep(actions: [.cancelInvoice])),
            (.invoiceAccepted(htlcExpiry: 300), .fundingFailed(retryable: true), ProviderSwapStep()),
            (.invoiceAccepted(htlcExpiry: 300), .block(height: 161), ProviderSwapStep(actions: [.lookupInvoice])),
            (.invoiceAccepted(htlcExpiry: 300), .invoiceCancelled, ProviderSwapStep(next: .cancelled, actions: [.pushStatus(.cancelled)])),
            (.invoiceAccepted(htlcExpiry: 300), invoice(.canceled), ProviderSwapStep(next: .cancelled, actions: [.pushStatus(.cancelled)])),
            // Unpaid: wait while a lock is still possible, give up after.
            (.invoiceCreated, .block(height: 163), ProviderSwapStep()),
            (.invoiceCreated, .block(height: 164), ProviderSwapStep(actions: [.cancelInvoice])),
            (.invoiceCreated, invoice(.open, tip: 164), ProviderSwapStep(actions: [.cancelInvoice])),
            (.invoiceCreated, invoice(.canceled), ProviderSwapStep(next: .cancelled, actions: [.pushStatus(.cancelled)])),
            (.invoiceCreated, .invoiceCancelled, ProviderSwapStep(next: .cancelled, actions: [.pushStatus(.cancelled)])),
        ]
        check(table)
    }

    func testFundingIntentPublishesOnlyTheRecordedLock() {
        let table: [(ProviderSwapState, ProviderSwapInput, ProviderSwapStep)] = [
            (.fundingIntent(lock), .lockMissing, ProviderSwapStep(actions: [.publishLock(lock)])),
            (.fundingIntent(lock), .block(height: 161), ProviderSwapStep(actions: [.publishLock(lock)])),
            (.fundingIntent(lock), .lockSeen(confirmations: 0),
             ProviderSwapStep(next: .lockBroadcast(lock), actions: [.pushStatus(.lockBroadcast), .watchLock(lock)])),
            (.fundingIntent(lock), .lockSeen(confirmations: 3),
             ProviderSwapStep(next: .lockConfirmed(lock), actions: [.pushStatus(.lockConfirmed), .watchLock(lock)])),
            (.fundingIntent(lock), .lockPublishFailed(permanent: false), ProviderSwapStep()),
            (.fundingIntent(lock), .lockPublishFailed(permanent: true), ProviderSwapStep(actions: [.cancelInvoice])),
            (.fundingIntent(lock), .fundingPrepared(lock), ProviderSwapStep()),
            // Not before the lock is known to be out: settling could leave the client unpaid.
            (.fundingIntent(lock), .preimagePushed(preimage: preimage, tipHeight: 160), ProviderSwapStep()),
        ]
        check(table)
    }

    func testPushedPreimagesCountOnlyWhenValidAndLocked() {
        let wrong = [UInt8](repeating: 0x43, count: 32)
        let claimed = ProviderSwapStep(next: .claimObserved(lock, preimage: preimage), actions: [.settleInvoice(preimage: preimage)])
        let table: [(ProviderSwapState, ProviderSwapInput, ProviderSwapStep)] = [
            (.invoiceCreated, .preimagePushed(preimage: preimage, tipHeight: 160), ProviderSwapStep()),
            (.invoiceAccepted(htlcExpiry: 300), .preimagePushed(preimage: preimage, tipHeight: 160), ProviderSwapStep()),
            (.lockBroadcast(lock), .preimagePushed(preimage: wrong, tipHeight: 160), ProviderSwapStep()),
            (.lockBroadcast(lock), .preimagePushed(preimage: Array(preimage.prefix(31)), tipHeight: 160), ProviderSwapStep()),
            (.lockBroadcast(lock), .preimagePushed(preimage: preimage, tipHeight: 160), claimed),
            (.lockConfirmed(lock), .preimagePushed(preimage: preimage, tipHeight: 160), claimed),
            // Audit H-2: once a refund may be out, a push never settles.
            (.refundIntent(lock, refund), .preimagePushed(preimage: preimage, tipHeight: 160), ProviderSwapStep()),
            (.refundBroadcast(lock, refund), .preimagePushed(preimage: preimage, tipHeight: 160), ProviderSwapStep()),
            (.refundBroadcast(lock, refund), .preimagePushed(preimage: wrong, tipHeight: 160), ProviderSwapStep()),
            (.claimPending(lock, refund, preimage: preimage), .preimagePushed(preimage: preimage, tipHeight: 160), ProviderSwapStep()),
            (.claimObserved(lock, preimage: preimage), .preimagePushed(preimage: preimage, tipHeight: 160), ProviderSwapStep()),
        ]
        check(table)
    }

    /// Zero-conf: an unconfirmed lock past the first claim cutoff is taken back (audit H-4),
    /// and the client's claim dies with it. A push then (the client's node a block behind, or
    /// blind to the withdrawal) must not settle: the provider would keep the payment and its
    /// coins. A confirmed lock cannot be taken back, so its push still settles; an unknown
    /// tip counts as past the cutoff.
    func testAPushForALockBeingTakenBackSettlesNothing() {
        let claimed = ProviderSwapStep(next: .claimObserved(lock, preimage: preimage), actions: [.settleInvoice(preimage: preimage)])
        XCTAssertEqual(machine.step(.lockBroadcast(lock), .block(height: 194)), ProviderSwapStep(actions: [.withdrawLock(lock)]))
        XCTAssertEqual(machine.step(.lockBroadcast(lock), .preimagePushed(preimage: preimage, tipHeight: 194)), ProviderSwapStep())
        XCTAssertEqual(machine.step(.lockBroadcast(lock), .preimagePushed(preimage: preimage, tipHeight: 199)), ProviderSwapStep())
        XCTAssertEqual(machine.step(.lockBroadcast(lock), .preimagePushed(preimage: preimage, tipHeight: nil)), ProviderSwapStep())
        let agreed = ProviderSwapInput.coopClaimAgreed(preimage: preimage, claim: ProviderCoopMachineTests.coop, tipHeight: 194)
        XCTAssertEqual(machine.step(.lockBroadcast(lock), agreed), ProviderSwapStep())
        // Before the cutoff, and for a confirmed lock at any tip, the push settles.
        XCTAssertEqual(machine.step(.lockBroadcast(lock), .block(height: 193)), ProviderSwapStep(actions: [.rebroadcastLock(lock)]))
        XCTAssertEqual(machine.step(.lockBroadcast(lock), .preimagePushed(preimage: preimage, tipHeight: 193)), claimed)
        XCTAssertEqual(machine.step(.lockConfirmed(lock), .preimagePushed(preimage: preimage, tipHeight: 194)), claimed)
        XCTAssertEqual(machine.step(.lockConfirmed(lock), .preimagePushed(preimage: preimage, tipHeight: nil)), claimed)
    }

    /// The client's claim replaced our refund after the timeout and stays unconfirmed (a
    /// spike). Waiting for it to confirm is right until the refund's deadline D = E − 18;
    /// past it LND cancels the HTLC at E − 12 and a claim confirming then takes the lock
    /// unpaid. At D the provider settles from the claim's preimage (review of 2026-12-07).
    func testAClaimStillPendingAtTheRefundDeadlineIsSettledFor() {
        let held = lock.with(htlcExpiry: 260)
        let pending = ProviderSwapState.claimPending(held, refund, preimage: preimage)
        XCTAssertEqual(machine.step(pending, .block(height: 241)), ProviderSwapStep(actions: [.checkRefund(refund, atBlock: false)]))
        XCTAssertEqual(machine.step(pending, .block(height: 242)),
                       ProviderSwapStep(next: .claimObserved(held, preimage: preimage), actions: [.settleInvoice(preimage: preimage)]))
        // Without the HTLC's expiry on record there is no deadline; once cancelled, nothing to settle.
        let unknown = ProviderSwapState.claimPending(lock, refund, preimage: preimage)
        XCTAssertEqual(machine.step(unknown, .block(height: 400)), ProviderSwapStep(actions: [.checkRefund(refund, atBlock: false)]))
        let cancelled = ProviderSwapState.claimPending(held.withHTLCCancelled(at: 248), refund, preimage: preimage)
        XCTAssertEqual(machine.step(cancelled, .block(height: 250)).actions, [.checkRefund(refund, atBlock: false)])
    }

    /// A push (or a cooperative request) accepted while the HTLC was already cancelled, not
    /// yet noticed: the settle can never succeed. The cancelled invoice, once seen, takes
    /// the swap back to its lock, marked, so the refund runs from the timeout instead of a
    /// settle retried for ever (review of 2026-12-07).
    func testASettleTheCancelledHTLCMakesImpossibleFallsBackToTheRefund() {
        let cancelled = invoice(.canceled, tip: 185)
        let marked = lock.withHTLCCancelled(at: 185)
        for state in [ProviderSwapState.claimObserved(lock, preimage: preimage),
                      .coopSigned(lock, preimage: preimage, claim: ProviderCoopMachineTests.coop)] {
            let step = machine.step(state, cancelled)
            XCTAssertEqual(step.next, .lockBroadcast(marked), "\(state)")
            XCTAssertEqual(step.actions.last, .watchLock(marked), "\(state)")
        }
        XCTAssertEqual(machine.step(.lockBroadcast(marked), .block(height: 200)), ProviderSwapStep(actions: [.prepareRefund(replacing: nil)]))
        XCTAssertEqual(machine.step(.lockBroadcast(marked), .preimagePushed(preimage: preimage, tipHeight: 190)), ProviderSwapStep())
    }

    func testRefundPathAfterTheTimeout() {
        let table: [(ProviderSwapState, ProviderSwapInput, ProviderSwapStep)] = [
            (.lockConfirmed(lock), .block(height: 199), ProviderSwapStep()),
            (.lockBroadcast(lock), .block(height: 193), ProviderSwapStep(actions: [.rebroadcastLock(lock)])),
            (.lockConfirmed(lock), .block(height: 200), ProviderSwapStep(actions: [.prepareRefund(replacing: nil)])),
            (.lockBroadcast(lock), .block(height: 201), ProviderSwapStep(actions: [.prepareRefund(replacing: nil)])),
            (.lockConfirmed(lock), .refundPrepared(refund),
             ProviderSwapStep(next: .refundIntent(lock, refund), actions: [.broadcastRefund(refund)])),
            (.refundIntent(lock, refund), .refundPublished, ProviderSwapStep(next: .refundBroadcast(lock, refund))),
            (.refundIntent(lock, refund), .refundPublishFailed, ProviderSwapStep()),
            (.refundIntent(lock, refund), .block(height: 201), ProviderSwapStep(actions: [.checkRefund(refund, atBlock: true)])),
            // Audit H-4: a refund missing at a block (refused or evicted) is replaced, not resent.
            (.refundIntent(lock, refund), .refundStatus(.missing, atBlock: true),
             ProviderSwapStep(actions: [.prepareRefund(replacing: refund)])),
            (.refundIntent(lock, refund), .refundStatus(.missing, atBlock: false), ProviderSwapStep(actions: [.broadcastRefund(refund)])),
            // Audit M-2: recorded at one confirmation, the invoice given up only at depth.
            (.refundIntent(lock, refund), .refundStatus(.confirmed(1), atBlock: false),
             ProviderSwapStep(next: .refundBroadcast(lock, refund))),
            (.refundIntent(lock, refund), .refundStatus(.confirmed(6), atBlock: false),
             ProviderSwapStep(next: .refundBroadcast(lock, refund), actions: [.cancelInvoice])),
            (.refundBroadcast(lock, refund), .block(height: 202), ProviderSwapStep(actions: [.checkRefund(refund, atBlock: true)])),
            (.refundBroadcast(lock, refund), .refundStatus(.unconfirmed, atBlock: true),
             ProviderSwapStep(actions: [.prepareRefund(replacing: refund)])),
            (.refundBroadcast(lock, refund), .refundStatus(.unconfirmed, atBlock: false), ProviderSwapStep()),
            (.refundBroadcast(lock, refund), .refundStatus(.missing, atBlock: true),
             ProviderSwapStep(actions: [.prepareRefund(replacing: refund)])),
            (.refundBroadcast(lock, refund), .refundPrepared(bumped),
             ProviderSwapStep(next: .refundIntent(lock, bumped), actions: [.broadcastRefund(bumped)])),
            (.refundBroadcast(lock, refund), .refundStatus(.confirmed(1), atBlock: true), ProviderSwapStep()),
            (.refundBroadcast(lock, refund), .refundStatus(.confirmed(5), atBlock: true), ProviderSwapStep()),
            (.refundBroadcast(lock, refund), .refundStatus(.confirmed(6), atBlock: true), ProviderSwapStep(actions: [.cancelInvoice])),
            (.refundBroadcast(lock, refund), .invoiceCancelled, ProviderSwapStep(next: .refunded, actions: [.pushStatus(.refunded)])),
            // The invoice is never given up while the lock may still be claimed.
            (.lockConfirmed(lock), .invoiceCancelled, ProviderSwapStep()),
            (.refundIntent(lock, refund), .refundStatus(.unconfirmed, atBlock: false), ProviderSwapStep(next: .refundBroadcast(lock, refund))),
        ]
        check(table)
    }

    /// Audit H-2: a claim seen while our refund is out is recorded, stops the bumps, and is
    /// settled for only once it is in a block; a deep refund cancels instead.
    func testAClaimCompetingWithTheRefundIsSettledOnlyOnceConfirmed() {
        let pending = ProviderSwapState.claimPending(lock, refund, preimage: preimage)
        let claimed = ProviderSwapStep(next: .claimObserved(lock, preimage: preimage), actions: [.settleInvoice(preimage: preimage)])
        let table: [(ProviderSwapState, ProviderSwapInput, ProviderSwapStep)] = [
            (.refundIntent(lock, refund), .claimSeen(preimage: preimage, confirmations: 0, txid: spender), ProviderSwapStep(next: pending)),
            (.refundBroadcast(lock, refund), .claimSeen(preimage: preimage, confirmations: 0, txid: spender), ProviderSwapStep(next: pending)),
            (.refundBroadcast(lock, refund), .claimSeen(preimage: preimage, confirmations: 1, txid: spender), claimed),
            (pending, .claimSeen(preimage: preimage, confirmations: 0, txid: spender), ProviderSwapStep()),
            (pending, .claimSeen(preimage: preimage, confirmations: 1, txid: spender), claimed),
            // Never bumped: a block only checks where the refund stands.
            (pending, .block(height: 203), ProviderSwapStep(actions: [.checkRefund(refund, atBlock: false)])),
            (pending, .refundStatus(.unconfirmed, atBlock: true), ProviderSwapStep()),
            // The claim left the mempool (the lock is unspent again) and nothing else spends
            // the lock: the refund goes back out, replaced at a higher rate. Waiting would let
            // the HTLC expire and the client claim later for free.
            (pending, .refundStatus(.missing, atBlock: true),
             ProviderSwapStep(next: .refundBroadcast(lock, refund), actions: [.prepareRefund(replacing: refund)])),
            (pending, .refundStatus(.confirmed(2), atBlock: false), ProviderSwapStep()),
            (pending, .refundStatus(.confirmed(6), atBlock: false), ProviderSwapStep(actions: [.cancelInvoice])),
            (pending, .invoiceCancelled, ProviderSwapStep(next: .refunded, actions: [.pushStatus(.refunded)])),
            // Before any refund, a claim in the mempool settles at once: nothing competes.
            (.lockConfirmed(lock), .claimSeen(preimage: preimage, confirmations: 0, txid: spender), claimed),
        ]
        check(table)
    }

    /// Audit C-2: a spend that is neither our refund nor a readable claim raises the alarm,
    /// and ends the swap `lock_lost` once it is in a block.
    func testASpendRevealingNoPreimageRaisesTheAlarm() {
        for state in [ProviderSwapState.fundingIntent(lock), .lockBroadcast(lock), .lockConfirmed(lock),
                      .refundIntent(lock, refund), .refundBroadcast(lock, refund), .claimPending(lock, refund, preimage: preimage)] {
            let unconfirmed = machine.step(state, .unreadableSpend(txid: spender, confirmations: 0))
            XCTAssertNil(unconfirmed.next, "\(state.kind.rawValue)")
            guard case .raiseAlarm(let what)? = unconfirmed.actions.first else { return XCTFail("no alarm in \(state.kind.rawValue)") }
            XCTAssertTrue(what.contains(spender.hex), what)
            let confirmed = machine.step(state, .unreadableSpend(txid: spender, confirmations: 1))
            XCTAssertEqual(confirmed.next, .lockLost(lock, spendingTxid: spender), "\(state.kind.rawValue)")
            XCTAssertEqual(confirmed.actions.count, 1)
        }
        XCTAssertTrue(ProviderSwapState.lockLost(lock, spendingTxid: spender).isFinal)
    }

    /// Audit M-7: a lock that can never confirm (an input spent elsewhere, deep) ends the
    /// swap `cancelled` and gives the payment back. A lock missing in the refund states (no
    /// refund can spend a lock that is nowhere) is taken back (H-4): past the timeout the
    /// client may no longer claim it, so sending it again would only serve a thief.
    func testALockThatCanNeverConfirmCancelsAndAMissingOneIsTakenBack() {
        for state in [ProviderSwapState.lockBroadcast(lock), .lockConfirmed(lock), .refundIntent(lock, refund),
                      .refundBroadcast(lock, refund)] {
            let gone = machine.step(state, .lockGone)
            XCTAssertEqual(gone.next, .cancelled, "\(state.kind.rawValue)")
            XCTAssertTrue(gone.actions.contains(.cancelInvoice), "\(state.kind.rawValue)")
            guard case .raiseAlarm? = gone.actions.first else { return XCTFail("no alarm in \(state.kind.rawValue)") }
        }
        XCTAssertEqual(machine.step(.refundBroadcast(lock, refund), .lockMissing), ProviderSwapStep(actions: [.withdrawLock(lock)]))
        XCTAssertEqual(machine.step(.refundIntent(lock, refund), .lockMissing), ProviderSwapStep(actions: [.withdrawLock(lock)]))
    }

    /// Audit H-4: an unconfirmed lock (no claim seen: that moves the swap on) is sent again
    /// while the client may still claim it (timeout − tip > 6); from the client's cutoff,
    /// or once its HTLC is cancelled, its inputs go back to the wallet instead. A confirmed
    /// lock is never taken back.
    func testAnUnconfirmedLockIsTakenBackOnceTheClientMayNoLongerClaimIt() {
        // Timeout 200: the client's first claim is allowed up to tip 193.
        XCTAssertEqual(machine.step(.lockBroadcast(lock), .block(height: 193)), ProviderSwapStep(actions: [.rebroadcastLock(lock)]))
        XCTAssertEqual(machine.step(.lockBroadcast(lock), .block(height: 194)), ProviderSwapStep(actions: [.withdrawLock(lock)]))
        XCTAssertEqual(machine.step(.lockBroadcast(lock), .block(height: 199)), ProviderSwapStep(actions: [.withdrawLock(lock)]))
        let cancelled = lock.withHTLCCancelled(at: 180)
        XCTAssertEqual(machine.step(.lockBroadcast(cancelled), .block(height: 181)), ProviderSwapStep(actions: [.withdrawLock(cancelled)]))
        // A recorded lock is never published once its HTLC is cancelled.
        XCTAssertEqual(machine.step(.fundingIntent(lock), .block(height: 181)), ProviderSwapStep(actions: [.publishLock(lock)]))
        XCTAssertEqual(machine.step(.fundingIntent(cancelled), .block(height: 181)), ProviderSwapStep(actions: [.withdrawLock(cancelled)]))
        XCTAssertEqual(machine.step(.fundingIntent(cancelled), .lockMissing), ProviderSwapStep(actions: [.withdrawLock(cancelled)]))
        XCTAssertEqual(machine.step(.fundingIntent(cancelled), .lockGone).next, .cancelled)
        XCTAssertEqual(machine.step(.lockConfirmed(lock), .block(height: 195)), ProviderSwapStep())
        // The withdrawal deep: the lock can never confirm, the payment goes back.
        XCTAssertEqual(machine.step(.lockBroadcast(lock), .lockGone).next, .cancelled)
        // The lock confirmed after all: followed as usual.
        XCTAssertEqual(machine.step(.lockBroadcast(lock), .lockSeen(confirmations: 1)),
                       ProviderSwapStep(next: .lockConfirmed(lock), actions: [.pushStatus(.lockConfirmed)]))
    }

    /// Audit H-4/M-7: LND cancels the client's HTLC while the lock is open. The cancel is
    /// recorded in the lock with an alarm; nothing settles any more (a push is ignored, a
    /// confirmed claim loses the lock, with an alarm); the refund still runs and ends the
    /// swap in the state that says what happened.
    func testAnHTLCCancelledWhileTheLockIsOpenRaisesTheAlarmAndTheSwapStillRefunds() {
        let marked = lock.withHTLCCancelled(at: 175)
        let cancelledAt175 = invoice(.canceled, tip: 175)
        for (state, next) in [(ProviderSwapState.fundingIntent(lock), ProviderSwapState.fundingIntent(marked)),
                              (.lockBroadcast(lock), .lockBroadcast(marked)), (.lockConfirmed(lock), .lockConfirmed(marked)),
                              (.refundIntent(lock, refund), .refundIntent(marked, refund)),
                              (.refundBroadcast(lock, refund), .refundBroadcast(marked, refund)),
                              (.claimPending(lock, refund, preimage: preimage), .claimPending(marked, refund, preimage: preimage))] {
            let step = machine.step(state, cancelledAt175)
            XCTAssertEqual(step.next, next, "\(state.kind.rawValue)")
            guard step.actions.count == 1, case .raiseAlarm(let what) = step.actions[0] else {
                return XCTFail("one alarm in \(state.kind.rawValue): \(step.actions)")
            }
            XCTAssertTrue(what.contains("cancelled") && what.contains(lock.txid.hex), what)
            XCTAssertEqual(machine.step(next, cancelledAt175), ProviderSwapStep(), "recorded once: \(state.kind.rawValue)")
        }
        XCTAssertEqual(marked.htlcCancelledHeight, 175)
        XCTAssertEqual(try ProviderSwapState(kind: "lock_confirmed", data: ProviderSwapState.lockConfirmed(marked).eventData),
                       .lockConfirmed(marked), "the cancel survives a restart")
        // A held HTLC seen again changes nothing.
        XCTAssertEqual(machine.step(.lockConfirmed(lock), invoice(.accepted, expiry: 300, tip: 175)), ProviderSwapStep())
        // Nothing settles: a push is ignored; a claim only raises the alarm, and loses the lock once in a block.
        XCTAssertEqual(machine.step(.lockConfirmed(marked), .preimagePushed(preimage: preimage, tipHeight: 160)), ProviderSwapStep())
        let mempoolClaim = machine.step(.lockConfirmed(marked), .claimSeen(preimage: preimage, confirmations: 0, txid: spender))
        XCTAssertNil(mempoolClaim.next)
        guard case .raiseAlarm? = mempoolClaim.actions.first else { return XCTFail("no alarm for the unpaid claim") }
        XCTAssertEqual(machine.step(.lockConfirmed(marked), .claimSeen(preimage: preimage, confirmations: 1, txid: spender)).next,
                       .lockLost(marked, spendingTxid: spender))
        XCTAssertEqual(machine.step(.claimPending(marked, refund, preimage: preimage),
                                    .claimSeen(preimage: preimage, confirmations: 1, txid: spender)).next,
                       .lockLost(marked, spendingTxid: spender))
        // The refund still runs from the timeout and ends the swap in its own final state.
        XCTAssertEqual(machine.step(.lockConfirmed(marked), .block(height: 200)), ProviderSwapStep(actions: [.prepareRefund(replacing: nil)]))
        XCTAssertEqual(machine.step(.refundBroadcast(marked, refund), .refundStatus(.confirmed(6), atBlock: true)),
                       ProviderSwapStep(actions: [.cancelInvoice]))
        for state in [ProviderSwapState.refundBroadcast(marked, refund), .claimPending(marked, refund, preimage: preimage)] {
            let end = machine.step(state, .invoiceCancelled)
            XCTAssertEqual(end.next, .refundedAfterHTLCCancel(marked), "\(state.kind.rawValue)")
            XCTAssertEqual(end.actions.last, .pushStatus(.refunded))
            guard case .raiseAlarm? = end.actions.first else { return XCTFail("no alarm at the end") }
        }
        XCTAssertTrue(ProviderSwapState.refundedAfterHTLCCancel(marked).isFinal)
        // Without a cancel, the same refund ends plain `refunded`.
        XCTAssertEqual(machine.step(.refundBroadcast(lock, refund), .invoiceCancelled).next, .refunded)
    }

    func testFinalStatesIgnoreEveryInput() {
        let inputs: [ProviderSwapInput] = [
            .recover, invoice(.accepted, expiry: 300), invoice(.canceled), .block(height: 250), .fundingPrepared(lock),
            .lockPublished, .lockSeen(confirmations: 1), .lockMissing, .claimSeen(preimage: preimage, confirmations: 0, txid: spender),
            .preimagePushed(preimage: preimage, tipHeight: 160), .refundPrepared(refund), .refundStatus(.missing, atBlock: true),
            .invoiceSettled, .invoiceCancelled,
        ]
        for state in allStates where state.isFinal {
            for input in inputs { XCTAssertEqual(machine.step(state, input), ProviderSwapStep(), "\(state) on \(input)") }
        }
        XCTAssertEqual(allStates.filter(\.isFinal).map(\.kind), [.settled, .refunded, .cancelled, .lockLost, .refundedAfterHTLCCancel])
    }

    func testEveryStateRoundTripsThroughItsEvent() throws {
        for state in allStates {
            XCTAssertEqual(try ProviderSwapState(kind: state.kind.rawValue, data: state.eventData), state)
        }
        XCTAssertThrowsError(try ProviderSwapState(kind: "lock_broadcast", data: .object([:])))
        XCTAssertThrowsError(try ProviderSwapState(kind: "teleported", data: .object([:])))
    }

    func testDescriptionsNeverShowThePreimage() {
        let state = ProviderSwapState.claimObserved(lock, preimage: preimage)
        XCTAssertFalse(state.description.contains(preimage.hex))
        XCTAssertFalse(ProviderSwapAction.settleInvoice(preimage: preimage).description.contains(preimage.hex))
    }

    func testStatusSequenceCountsClientVisibleChanges() {
        let kinds = ["invoice_created", "invoice_accepted", "funding_intent", "lock_broadcast", "lock_confirmed",
                     "claim_observed", "settled"]
        let events = kinds.enumerated().map {
            SwapEvent(sequence: Int64($0.offset + 1), kind: $0.element, data: .object([:]), isFinal: $0.element == "settled", at: 0)
        }
        XCTAssertEqual(ProviderEngine.statusSequence(of: events), 5)
        XCTAssertEqual(ProviderEngine.statusSequence(of: Array(events.prefix(3))), 2)
    }

    private func check(_ table: [(ProviderSwapState, ProviderSwapInput, ProviderSwapStep)],
                       file: StaticString = #filePath, line: UInt = #line) {
        for (index, (state, input, expected)) in table.enumerated() {
            XCTAssertEqual(machine.step(state, input), expected, "row \(index): \(state.kind.rawValue) on \(input)",
                           file: file, line: line)
        }
    }
}
