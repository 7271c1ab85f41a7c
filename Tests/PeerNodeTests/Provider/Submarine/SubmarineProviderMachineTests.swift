import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Transport
import XCTest

/// The provider's `onchain_to_ln` machine as tables: every state's answer to `.recover`,
/// the happy path, every hostile lock, the checks at pay time, the crash between the
/// intent and the payment, duplicates, events out of order, reorgs on both sides of the
/// payment, a success after the timeout, and the claim's bumps. Each action list is exact.
///
/// Numbers: timeout 300, 2 confirmations, min_final_cltv_expiry 80, so a payment needs
/// cltv_limit = 300 − tip − 12 ≥ 83, tip ≤ 205; a first claim needs 300 − tip > 6, tip ≤ 293.
final class SubmarineProviderMachineTests: XCTestCase {
    private static let preimage = [UInt8](repeating: 0x42, count: 32)
    private static let paymentHash = SHA256.hash(preimage)
    private static let total: Int64 = 20_431
    private static let now: UInt64 = 1_800_000_000
    private static let expiresAt = now + 3_600

    private static let contract = try! SwapContract(type: .taprootBoltz, terms: try! SwapTerms(
        network: .regtest, paymentHash: paymentHash, claimPublicKey: key(0x55).publicKey,
        refundPublicKey: key(0x66).publicKey, timeoutHeight: 300, roles: .submarine))
    private static let invoice = SubmarineInvoice(network: .regtest, paymentHash: paymentHash, amountMsat: 20_000_000,
                                                  payeeNodeID: key(0x77).publicKey, expiresAtUnix: expiresAt,
                                                  minFinalCLTVExpiry: 80)
    private let machine = SubmarineProviderMachine(context: SubmarineProviderContext(
        contract: contract, lockTotalSat: total, requiredConfirmations: 2, invoice: invoice))
    /// The same swap with a client that offered `musig2` (issue 17).
    private let cooperative = SubmarineProviderMachine(context: SubmarineProviderContext(
        contract: contract, lockTotalSat: total, requiredConfirmations: 2, invoice: invoice, cooperative: true))

    private static func key(_ byte: UInt8) -> PrivateKey { try! PrivateKey([UInt8](repeating: byte, count: 32)) }

    /// A lock spending coin `coin`, paying `value` to `script` (the contract's by default)
    /// plus change; `feeTag` varies the change so a replacement of the same coin differs.
    private static func lockTransaction(coin: UInt8, value: Int64 = total, script: Script = contract.scriptPubKey,
                                        feeTag: Int64 = 0) -> Transaction {
        let coin = OutPoint(txid: try! TransactionID(bytes: [UInt8](repeating: coin, count: 32)), index: 0)
        return Transaction(inputs: [TransactionInput(previousOutput: coin, sequence: TransactionInput.replaceableSequence)],
                           outputs: [TransactionOutput(value: 50_000 - feeTag, scriptPubKey: Script(bytes: [0x00, 0x14] + [UInt8](repeating: 3, count: 20))),
                                     TransactionOutput(value: value, scriptPubKey: script)],
                           lockTime: 0)
    }

    private static func claimTransaction(_ tag: UInt8) -> Transaction {
        Transaction(inputs: [TransactionInput(previousOutput: OutPoint(txid: try! TransactionID(bytes: [UInt8](repeating: tag, count: 32)),
                                                                        index: 1))],
                    outputs: [TransactionOutput(value: 20_000, scriptPubKey: Script(bytes: [0x51, 0x20] + [UInt8](repeating: tag, count: 32)))],
                    lockTime: 0)
    }

    private let lockTx = lockTransaction(coin: 1)
    private lazy var lock = try! SubmarineLock(verifying: lockTx, contract: Self.contract, totalSat: Self.total)
    private let claim = SubmarineClaim(transaction: claimTransaction(8), feeRate: try! FeeRate(satPerVByte: 2), fee: 304,
                                       builtAtHeight: 210)
    private let bumped = SubmarineClaim(transaction: claimTransaction(9), feeRate: try! FeeRate(satPerVByte: 4), fee: 608,
                                        builtAtHeight: 254)
    private let refundTxid = try! TransactionID(bytes: [UInt8](repeating: 0xEE, count: 32))
    private var preimage: [UInt8] { Self.preimage }
    /// A cooperative claim round and a co-signed refund, as the engine hands them over.
    static let round = CoopRound(record: CoopRequestedRecord(publicNonce: SubmarineClientFixture.nonce(0x71),
                                                             sighash: [UInt8](repeating: 0x72, count: 32),
                                                             unsignedTransaction: claimTransaction(0x73)),
                                 scriptPathOutputSat: 19_800, scriptPathVirtualSize: 152)
    static let cosignedRefund = CoopCosigned(
        kind: .refund, record: CoopSignedRecord(initiatorNonce: SubmarineClientFixture.nonce(0x74),
                                                responderNonce: SubmarineClientFixture.nonce(0x75),
                                                sighash: [UInt8](repeating: 0x76, count: 32),
                                                partialSignature: try! MuSig2PartialSignature([UInt8](repeating: 2, count: 32))),
        txid: claimTransaction(0x77).txid)

    private var allStates: [SubmarineProviderState] {
        [.accepted, .lockSeen(lock), .lockConfirmed(lock), .paymentIntent(lock, cltvLimit: 88),
         .paymentInFlight(lock, cltvLimit: 88), .paid(lock, preimage: preimage), .claimBroadcast(lock, preimage: preimage, claim),
         .claimed(minedClaimTxid: nil), .abandoned(.noLockInTime), .lockMismatch(txid: lockTx.txid, .noOutputPaysTheContract),
         .paymentFailed(lock, reason: "no route"), .released,
         .claimLost(lock, spendingTxid: refundTxid), .coopRequested(lock, preimage: preimage, Self.round),
         .coopRefundSigned(lock, reason: "no route", Self.cosignedRefund)]
    }

    private func assertTable(_ table: [(SubmarineProviderState, SubmarineProviderInput, SubmarineProviderStep)],
                             file: StaticString = #filePath, line: UInt = #line) {
        for (index, (state, input, expected)) in table.enumerated() {
            XCTAssertEqual(machine.step(state, input), expected, "row \(index): \(state.kind.rawValue) + \(input)",
                           file: file, line: line)
        }
    }

    // MARK: recover

    func testEveryStateAnswersRecover() {
        let expected: [(SubmarineProviderState, SubmarineProviderStep)] = [
            (.accepted, SubmarineProviderStep(actions: [.watchLock])),
            (.lockSeen(lock), SubmarineProviderStep(actions: [.watchLock])),
            (.lockConfirmed(lock), SubmarineProviderStep(actions: [.watchLock, .preparePayment])),
            // Never `.pay`: the send may have reached the node before the crash.
            (.paymentIntent(lock, cltvLimit: 88), SubmarineProviderStep(actions: [.watchLock, .trackPayment])),
            (.paymentInFlight(lock, cltvLimit: 88), SubmarineProviderStep(actions: [.watchLock, .trackPayment])),
            (.paid(lock, preimage: preimage), SubmarineProviderStep(actions: [.watchLock, .prepareClaim(replacing: nil)])),
            // The round's nonce died with the process: the script path, never a second round.
            (.coopRequested(lock, preimage: preimage, Self.round), SubmarineProviderStep(actions: [.watchLock, .prepareClaim(replacing: nil)])),
            (.claimBroadcast(lock, preimage: preimage, claim), SubmarineProviderStep(actions: [.watchLock, .broadcastClaim(claim)])),
            (.claimed(minedClaimTxid: nil), SubmarineProviderStep()),
            (.abandoned(.noLockInTime), SubmarineProviderStep()),
            (.lockMismatch(txid: lockTx.txid, .noOutputPaysTheContract), SubmarineProviderStep()),
            (.paymentFailed(lock, reason: "no route"), SubmarineProviderStep(actions: [.watchLock])),
            (.coopRefundSigned(lock, reason: "no route", Self.cosignedRefund), SubmarineProviderStep(actions: [.watchLock])),
            (.released, SubmarineProviderStep()),
            (.claimLost(lock, spendingTxid: refundTxid), SubmarineProviderStep()),
        ]
        XCTAssertEqual(expected.map(\.0.kind), SubmarineProviderState.Kind.allCases, "the table covers every state")
        for (state, step) in expected {
            XCTAssertEqual(machine.step(state, .recover), step, "recover in \(state.kind.rawValue)")
        }
    }

    // MARK: the happy path

    func testHappyPathFromTheLockToAClaimSixDeep() {
        let accepted = claim.accepted(at: 211)
        assertTable([
            (.accepted, .lockSeen(lockTx, confirmations: 0), SubmarineProviderStep(next: .lockSeen(lock))),
            (.lockSeen(lock), .lockSeen(lockTx, confirmations: 1), SubmarineProviderStep()),
            (.lockSeen(lock), .lockSeen(lockTx, confirmations: 2),
             SubmarineProviderStep(next: .lockConfirmed(lock), actions: [.preparePayment])),
            // 300 − 200 − 12 = 88; the intent is stored by the step that asks for the payment.
            (.lockConfirmed(lock), .paymentReady(tipHeight: 200, nowUnix: Self.now),
             SubmarineProviderStep(next: .paymentIntent(lock, cltvLimit: 88), actions: [.pay(cltvLimit: 88)])),
            (.paymentIntent(lock, cltvLimit: 88), .paymentStarted,
             SubmarineProviderStep(next: .paymentInFlight(lock, cltvLimit: 88))),
            (.paymentInFlight(lock, cltvLimit: 88), .payment(.inFlight, tipHeight: 200), SubmarineProviderStep()),
            (.paymentInFlight(lock, cltvLimit: 88), .payment(.succeeded(preimage: preimage), tipHeight: 201),
             SubmarineProviderStep(next: .paid(lock, preimage: preimage), actions: [.prepareClaim(replacing: nil)])),
            (.paid(lock, preimage: preimage), .claimPrepared(claim),
             SubmarineProviderStep(next: .claimBroadcast(lock, preimage: preimage, claim), actions: [.broadcastClaim(claim)])),
            (.claimBroadcast(lock, preimage: preimage, claim), .claimPublished(tipHeight: 211),
             SubmarineProviderStep(next: .claimBroadcast(lock, preimage: preimage, accepted))),
            (.claimBroadcast(lock, preimage: preimage, accepted), .block(height: 212, nowUnix: Self.now),
             SubmarineProviderStep(actions: [.checkClaim(accepted)])),
            (.claimBroadcast(lock, preimage: preimage, accepted), .claimStatus(.confirmed(1, txid: claim.txid), tipHeight: 212),
             SubmarineProviderStep()),
            (.claimBroadcast(lock, preimage: preimage, accepted), .claimStatus(.confirmed(5, txid: claim.txid), tipHeight: 216),
             SubmarineProviderStep()),
            (.claimBroadcast(lock, preimage: preimage, accepted), .claimStatus(.confirmed(6, txid: claim.txid), tipHeight: 217),
             SubmarineProviderStep(next: .claimed(minedClaimTxid: nil))),
        ])
    }

    func testALockDeepEnoughWhenFirstSeenGoesStraightToThePayment() {
        assertTable([
            (.accepted, .lockSeen(lockTx, confirmations: 2), SubmarineProviderStep(next: .lockConfirmed(lock), actions: [.preparePayment])),
            (.accepted, .lockSeen(lockTx, confirmations: 1), SubmarineProviderStep(next: .lockSeen(lock))),
        ])
    }

    func testConfirmationsAreNeverBelowOne() {
        let zeroConf = SubmarineProviderMachine(context: SubmarineProviderContext(
            contract: Self.contract, lockTotalSat: Self.total, requiredConfirmations: 0, invoice: Self.invoice))
        XCTAssertEqual(zeroConf.context.requiredConfirmations, 1)
        XCTAssertEqual(zeroConf.step(.accepted, .lockSeen(lockTx, confirmations: 0)), SubmarineProviderStep(next: .lockSeen(lock)))
        XCTAssertEqual(zeroConf.step(.lockSeen(lock), .lockSeen(lockTx, confirmations: 1)),
                       SubmarineProviderStep(next: .lockConfirmed(lock), actions: [.preparePayment]))
    }

    // MARK: hostile locks

    func testALockOneSatShortIsNeverPaid() {
        let short = Self.lockTransaction(coin: 1, value: Self.total - 1)
        assertTable([
            // Unconfirmed it could be anyone's (`testAStrangersPaymentToTheAddressCannotEndTheSwap`).
            (.accepted, .lockSeen(short, confirmations: 0), SubmarineProviderStep()),
            (.accepted, .lockSeen(short, confirmations: 1),
             SubmarineProviderStep(next: .lockMismatch(txid: short.txid, .amountShort(agreedSat: Self.total, lockedSat: Self.total - 1)))),
            (.accepted, .lockSeen(short, confirmations: 2),
             SubmarineProviderStep(next: .lockMismatch(txid: short.txid, .amountShort(agreedSat: Self.total, lockedSat: Self.total - 1)))),
            (.lockMismatch(txid: short.txid, .amountShort(agreedSat: Self.total, lockedSat: Self.total - 1)),
             .paymentReady(tipHeight: 200, nowUnix: Self.now), SubmarineProviderStep()),
        ])
    }

    /// Once the client's lock is in the mempool its address is public: a stranger can pay
    /// dust to it. Unconfirmed, such a payment (or the client's own short lock) decides
    /// nothing yet, so a stranger cannot end the swap before the client's lock is seen; once
    /// a lock is recorded, a payment that does not conflict with it is ignored.
    func testAStrangersPaymentToTheAddressCannotEndTheSwap() {
        let dust = Self.lockTransaction(coin: 3, value: 330)
        assertTable([
            (.accepted, .lockSeen(dust, confirmations: 0), SubmarineProviderStep()),
            (.accepted, .lockSeen(lockTx, confirmations: 0), SubmarineProviderStep(next: .lockSeen(lock))),
            (.lockSeen(lock), .lockSeen(dust, confirmations: 1), SubmarineProviderStep()),
            (.lockConfirmed(lock), .lockSeen(dust, confirmations: 6), SubmarineProviderStep()),
        ])
    }

    func testALockToAnotherScriptOrOfAnotherAmountIsNeverPaid() {
        let elsewhere = Self.lockTransaction(coin: 1, script: Script(bytes: [0x51, 0x20] + [UInt8](repeating: 0xAB, count: 32)))
        let over = Self.lockTransaction(coin: 1, value: Self.total + 1)
        assertTable([
            (.accepted, .lockSeen(elsewhere, confirmations: 6),
             SubmarineProviderStep(next: .lockMismatch(txid: elsewhere.txid, .noOutputPaysTheContract))),
            (.accepted, .lockSeen(over, confirmations: 6),
             SubmarineProviderStep(next: .lockMismatch(txid: over.txid, .amountOver(agreedSat: Self.total, lockedSat: Self.total + 1)))),
        ])
        XCTAssertTrue(SubmarineLockMismatch.amountShort(agreedSat: 10, lockedSat: 9).description.contains("refund it after the timeout"))
    }

    /// A client that mines locks in its own block's coinbase, paying the contract exactly:
    /// the provider's claim would be refused until the coinbase matures, 100 blocks on,
    /// past the timeout, when the client's refund is valid too and the miner picks the
    /// winner. Never paid (review of 2026-12-07).
    func testACoinbaseLockIsNeverPaid() throws {
        let coinbase = Transaction(inputs: [TransactionInput(previousOutput: .null, scriptSig: Script(bytes: [0x02, 0xC8, 0x00]))],
                                   outputs: [TransactionOutput(value: Self.total, scriptPubKey: Self.contract.scriptPubKey)],
                                   lockTime: 0)
        XCTAssertTrue(coinbase.isCoinbase)
        assertTable([
            (.accepted, .lockSeen(coinbase, confirmations: 2),
             SubmarineProviderStep(next: .lockMismatch(txid: coinbase.txid, .coinbase))),
            (.lockMismatch(txid: coinbase.txid, .coinbase), .paymentReady(tipHeight: 200, nowUnix: Self.now), SubmarineProviderStep()),
        ])
        let stored = SubmarineProviderState.lockMismatch(txid: coinbase.txid, .coinbase)
        XCTAssertEqual(try SubmarineLockMismatch(json: SubmarineLockMismatch.coinbase.json), .coinbase)
        XCTAssertEqual(stored.kind.rawValue, "lock_mismatch")
    }

    /// At 0 confirmations the lock can be replaced (full RBF): nothing is paid, the
    /// replacement is judged on its own, a short one ends the swap unpaid.
    func testAZeroConfLockWithRBFIsNeverPaidAndItsReplacementIsCheckedAgain() {
        let replacement = Self.lockTransaction(coin: 1, feeTag: 500)
        let replacementLock = try! SubmarineLock(verifying: replacement, contract: Self.contract, totalSat: Self.total)
        let shortReplacement = Self.lockTransaction(coin: 1, value: Self.total - 1, feeTag: 900)
        let unrelated = Self.lockTransaction(coin: 2, value: 1)
        assertTable([
            (.accepted, .lockSeen(lockTx, confirmations: 0), SubmarineProviderStep(next: .lockSeen(lock))),
            (.lockSeen(lock), .block(height: 150, nowUnix: Self.now), SubmarineProviderStep()),
            // A stale or early answer from the Lightning side pays nothing outside lock_confirmed.
            (.lockSeen(lock), .paymentReady(tipHeight: 150, nowUnix: Self.now), SubmarineProviderStep()),
            (.lockSeen(lock), .lockSeen(replacement, confirmations: 0), SubmarineProviderStep(next: .lockSeen(replacementLock))),
            (.lockSeen(lock), .lockSeen(shortReplacement, confirmations: 0),
             SubmarineProviderStep(next: .lockMismatch(txid: shortReplacement.txid,
                                                       .amountShort(agreedSat: Self.total, lockedSat: Self.total - 1)))),
            // Another coin paying the address replaces nothing.
            (.lockSeen(lock), .lockSeen(unrelated, confirmations: 3), SubmarineProviderStep()),
            (.lockConfirmed(lock), .lockSeen(unrelated, confirmations: 3), SubmarineProviderStep()),
        ])
    }

    // MARK: the checks at pay time

    func testThePaymentChecksTheInvoiceAndTheCLTVLimitFromTheTipOfThatMoment() {
        assertTable([
            // 300 − 205 − 12 = 83 = 80 + 3: the last tip that leaves a route.
            (.lockConfirmed(lock), .paymentReady(tipHeight: 205, nowUnix: Self.now),
             SubmarineProviderStep(next: .paymentIntent(lock, cltvLimit: 83), actions: [.pay(cltvLimit: 83)])),
            (.lockConfirmed(lock), .paymentReady(tipHeight: 206, nowUnix: Self.now),
             SubmarineProviderStep(next: .abandoned(.noRouteUnderCLTVLimit(cltvLimit: 82, minFinalCLTVExpiry: 80)))),
            (.lockConfirmed(lock), .paymentReady(tipHeight: 200, nowUnix: Self.expiresAt),
             SubmarineProviderStep(next: .abandoned(.invoiceExpired(expiresAtUnix: Self.expiresAt)))),
            (.lockConfirmed(lock), .paymentReady(tipHeight: 200, nowUnix: Self.expiresAt - 1),
             SubmarineProviderStep(next: .paymentIntent(lock, cltvLimit: 88), actions: [.pay(cltvLimit: 88)])),
            // Not ready (no liquidity yet): tried again at the next block.
            (.lockConfirmed(lock), .paymentNotReady, SubmarineProviderStep()),
            (.lockConfirmed(lock), .block(height: 201, nowUnix: Self.now), SubmarineProviderStep(actions: [.preparePayment])),
        ])
    }

    /// A Lightning side that never gets ready (node unreachable) does not keep a confirmed
    /// lock's swap open for ever: at a block where the payment could no longer go out, the
    /// swap ends, nothing paid, with the reason of that block.
    func testAConfirmedLockWhosePaymentCanNoLongerGoOutIsAbandonedAtABlock() {
        assertTable([
            (.lockConfirmed(lock), .block(height: 205, nowUnix: Self.now), SubmarineProviderStep(actions: [.preparePayment])),
            (.lockConfirmed(lock), .block(height: 206, nowUnix: Self.now),
             SubmarineProviderStep(next: .abandoned(.noRouteUnderCLTVLimit(cltvLimit: 82, minFinalCLTVExpiry: 80)))),
            (.lockConfirmed(lock), .block(height: 200, nowUnix: Self.expiresAt),
             SubmarineProviderStep(next: .abandoned(.invoiceExpired(expiresAtUnix: Self.expiresAt)))),
        ])
    }

    func testTheProviderGivesUpWaitingOnceALockCouldNoLongerBePaidSafely() {
        assertTable([
            // No lock: two confirmations to go, 300 − (203 + 2) − 12 = 83.
            (.accepted, .block(height: 203, nowUnix: Self.now), SubmarineProviderStep()),
            (.accepted, .block(height: 204, nowUnix: Self.now), SubmarineProviderStep(next: .abandoned(.noLockInTime))),
            // Two blocks of 600 s must fit before the invoice expires.
            (.accepted, .block(height: 100, nowUnix: Self.expiresAt - 1_201), SubmarineProviderStep()),
            (.accepted, .block(height: 100, nowUnix: Self.expiresAt - 1_200), SubmarineProviderStep(next: .abandoned(.noLockInTime))),
            // A lock in the mempool may need one more block only.
            (.lockSeen(lock), .block(height: 204, nowUnix: Self.now), SubmarineProviderStep()),
            (.lockSeen(lock), .block(height: 205, nowUnix: Self.now), SubmarineProviderStep(next: .abandoned(.noLockInTime))),
            (.accepted, .lockRefunded(txid: refundTxid, confirmations: 1), SubmarineProviderStep(next: .abandoned(.lockRefunded))),
            (.lockSeen(lock), .lockRefunded(txid: refundTxid, confirmations: 0), SubmarineProviderStep()),
        ])
    }

    /// SUB-LIQ-1: a swap whose lock was never seen is given up once the lock's deadline
    /// after the accept has passed, long before the CLTV bound; a lock seen in time is
    /// waited on as before.
    func testASwapWithNoLockSeenIsGivenUpAfterTheLockDeadline() {
        let deadline: UInt32 = 124
        let bounded = SubmarineProviderMachine(context: SubmarineProviderContext(
            contract: Self.contract, lockTotalSat: Self.total, requiredConfirmations: 2, invoice: Self.invoice,
            lockDeadlineHeight: deadline))
        XCTAssertEqual(bounded.step(.accepted, .block(height: deadline, nowUnix: Self.now)), SubmarineProviderStep())
        XCTAssertEqual(bounded.step(.accepted, .block(height: deadline + 1, nowUnix: Self.now)),
                       SubmarineProviderStep(next: .abandoned(.noLockInTime)))
        XCTAssertEqual(machine.step(.accepted, .block(height: deadline + 1, nowUnix: Self.now)), SubmarineProviderStep(),
                       "without a deadline only the CLTV bound counts")
        XCTAssertEqual(bounded.step(.lockSeen(lock), .block(height: deadline + 1, nowUnix: Self.now)), SubmarineProviderStep(),
                       "a lock seen in time is waited on")
        XCTAssertTrue(SubmarineGiveUp.noLockInTime.description.contains("\(SubmarineRules.lockWaitBlocks) blocks of the accept"))
    }

    // MARK: never twice

    /// A crash after `payment_intent`: the node is asked, never paid again. If it never
    /// got the payment, nothing was paid and the swap ends unpaid.
    private static let notFound = "the Lightning node does not know the payment: never sent (a restart between recording "
        + "and sending it) or not registered yet (a send whose answer was lost); looked up at each block until the timeout"

    func testAPaymentUpdateAfterACrashResumesFromTheIntentByTrackingNeverPaying() {
        let intent = SubmarineProviderState.paymentIntent(lock, cltvLimit: 88)
        assertTable([
            (intent, .recover, SubmarineProviderStep(actions: [.watchLock, .trackPayment])),
            (intent, .payment(.inFlight, tipHeight: 202), SubmarineProviderStep(next: .paymentInFlight(lock, cltvLimit: 88))),
            (intent, .payment(.succeeded(preimage: preimage), tipHeight: 202),
             SubmarineProviderStep(next: .paid(lock, preimage: preimage), actions: [.prepareClaim(replacing: nil)])),
            (intent, .paymentNotFound, SubmarineProviderStep(next: .paymentFailed(lock, reason: Self.notFound))),
            // A second "ready" (a retried check) never sends a second payment.
            (intent, .paymentReady(tipHeight: 200, nowUnix: Self.now), SubmarineProviderStep()),
            (.paymentInFlight(lock, cltvLimit: 88), .paymentReady(tipHeight: 200, nowUnix: Self.now), SubmarineProviderStep()),
            (intent, .block(height: 203, nowUnix: Self.now), SubmarineProviderStep(actions: [.trackPayment])),
        ])
        // "Not found" may also answer a live send whose request left but whose answer never
        // came (a timeout, a dropped connection), tracked before LND registered it: LND can
        // still pay it. So the payment is looked up at each block until the timeout, and a
        // success then is claimed for (review of 2026-12-07).
        let notFound = SubmarineProviderState.paymentFailed(lock, reason: Self.notFound)
        XCTAssertEqual(machine.step(notFound, .block(height: 203, nowUnix: Self.now)), SubmarineProviderStep(actions: [.trackPayment]))
        XCTAssertEqual(machine.step(notFound, .payment(.succeeded(preimage: preimage), tipHeight: 204)),
                       SubmarineProviderStep(next: .paid(lock, preimage: preimage), actions: [.prepareClaim(replacing: nil)]))
        XCTAssertEqual(machine.step(notFound, .block(height: 300, nowUnix: Self.now)), SubmarineProviderStep(next: .released))
        let inFlightNotFound = machine.step(.paymentInFlight(lock, cltvLimit: 88), .paymentNotFound)
        XCTAssertNil(inFlightNotFound.next, "a payment the node took is never given up on its word alone")
        XCTAssertEqual(inFlightNotFound.actions.count, 1)
        guard case .raiseAlarm = inFlightNotFound.actions.first else { return XCTFail("alarm expected") }
    }

    /// Only `lock_confirmed` + `paymentReady` pays: every other state and input pays nothing.
    func testOnlyOneTransitionEverPays() {
        let inputs: [SubmarineProviderInput] = [
            .recover, .block(height: 200, nowUnix: Self.now), .lockSeen(lockTx, confirmations: 3), .lockMissing,
            .lockRefunded(txid: refundTxid, confirmations: 6), .paymentReady(tipHeight: 200, nowUnix: Self.now), .paymentNotReady,
            .paymentStarted, .payment(.inFlight, tipHeight: 200), .payment(.succeeded(preimage: preimage), tipHeight: 200),
            .payment(.failed(.noRoute), tipHeight: 200), .paymentNotFound, .claimPrepared(claim), .claimFailed,
            .claimPublished(tipHeight: 200), .claimPublishFailed, .claimStatus(.missing, tipHeight: 200),
            .coopClaimPrepared(Self.round), .coopFailed("refused"), .coopRefundAgreed(Self.cosignedRefund),
        ]
        for (machine, state) in [machine, cooperative].flatMap({ machine in allStates.map { (machine, $0) } }) {
            for input in inputs {
                let pays = machine.step(state, input).actions.contains { if case .pay = $0 { return true } else { return false } }
                let expected = state.kind == .lockConfirmed && input == .paymentReady(tipHeight: 200, nowUnix: Self.now)
                XCTAssertEqual(pays, expected, "\(state.kind.rawValue) + \(input)")
            }
        }
    }

    /// Every state reachable from `accepted` under a fixed alphabet of inputs (good, short
    /// and replacing locks, reorgs, every payment report, claims, blocks across the
    /// deadlines): a transition that pays records `payment_intent`, and from there no
    /// sequence of inputs pays again.
    func testNoSequenceOfInputsPaysTwice() {
        let replacement = Self.lockTransaction(coin: 1, feeTag: 500)
        let alphabet: [SubmarineProviderInput] = [
            .recover, .lockSeen(lockTx, confirmations: 0), .lockSeen(lockTx, confirmations: 2),
            .lockSeen(replacement, confirmations: 2), .lockSeen(Self.lockTransaction(coin: 1, value: 1, feeTag: 9), confirmations: 1),
            .lockMissing, .lockRefunded(txid: refundTxid, confirmations: 6),
            .paymentReady(tipHeight: 200, nowUnix: Self.now), .paymentReady(tipHeight: 206, nowUnix: Self.now), .paymentNotReady,
            .paymentStarted, .payment(.inFlight, tipHeight: 201), .payment(.succeeded(preimage: preimage), tipHeight: 201),
            .payment(.succeeded(preimage: preimage), tipHeight: 299), .payment(.failed(.noRoute), tipHeight: 201), .paymentNotFound,
            .claimPrepared(claim), .claimPrepared(bumped), .claimFailed, .claimPublished(tipHeight: 211), .claimPublishFailed,
            .claimStatus(.unconfirmed, tipHeight: 290), .claimStatus(.missing, tipHeight: 215), .claimStatus(.confirmed(6, txid: claim.txid), tipHeight: 220),
            .claimStatus(.confirmed(6, txid: bumped.txid), tipHeight: 220),
            .block(height: 201, nowUnix: Self.now), .block(height: 295, nowUnix: Self.now), .block(height: 300, nowUnix: Self.now),
            .coopClaimPrepared(Self.round), .coopUnavailable("no"), .coopFailed("refused"), .coopRefundAgreed(Self.cosignedRefund),
        ]
        // A cooperative swap: every path of the other, and the rounds' states besides.
        let machine = cooperative
        func reachable(from start: SubmarineProviderState) -> (states: Set<SubmarineProviderState>, pays: [SubmarineProviderStep]) {
            var seen: Set<SubmarineProviderState> = [start]
            var queue = [start]
            var pays: [SubmarineProviderStep] = []
            while let state = queue.popLast() {
                for input in alphabet {
                    let step = machine.step(state, input)
                    if step.actions.contains(where: { if case .pay = $0 { return true } else { return false } }) { pays.append(step) }
                    if let next = step.next, seen.insert(next).inserted { queue.append(next) }
                }
            }
            return (seen, pays)
        }
        let all = reachable(from: .accepted)
        XCTAssertEqual(Set(all.states.map(\.kind)), Set(SubmarineProviderState.Kind.allCases), "the alphabet reaches every state")
        XCTAssertFalse(all.pays.isEmpty)
        for pay in all.pays {
            guard case .paymentIntent = pay.next else { return XCTFail("a payment without its intent: \(pay)") }
            XCTAssertEqual(pay.actions.count, 1)
            XCTAssertTrue(reachable(from: pay.next!).pays.isEmpty, "a second payment is reachable after \(pay)")
        }
    }

    // MARK: preimages

    func testAPreimageThatDoesNotHashToThePaymentHashIsRejected() {
        let wrong = [UInt8](repeating: 0x43, count: 32)
        let alarm = SubmarineProviderAction.raiseAlarm(
            "the payment for lock \(lock.txid) reported a preimage that does not hash to the payment hash: ignored")
        assertTable([
            (.paymentInFlight(lock, cltvLimit: 88), .payment(.succeeded(preimage: wrong), tipHeight: 201),
             SubmarineProviderStep(actions: [alarm])),
            (.paymentInFlight(lock, cltvLimit: 88), .payment(.succeeded(preimage: preimage + [0]), tipHeight: 201),
             SubmarineProviderStep(actions: [alarm])),
            (.paymentFailed(lock, reason: "no route"), .payment(.succeeded(preimage: wrong), tipHeight: 201),
             SubmarineProviderStep(actions: [alarm])),
        ])
    }

    func testNoDescriptionShowsThePreimage() {
        let hex = preimage.hex
        for state in allStates { XCTAssertFalse(state.description.contains(hex), state.kind.rawValue) }
        for action in [SubmarineProviderAction.prepareClaim(replacing: claim), .broadcastClaim(claim), .pay(cltvLimit: 88)] {
            XCTAssertFalse(action.description.contains(hex))
        }
    }

    // MARK: duplicates and order

    func testDuplicateInputsChangeNothing() {
        let accepted = claim.accepted(at: 211)
        assertTable([
            (.lockSeen(lock), .lockSeen(lockTx, confirmations: 0), SubmarineProviderStep()),
            (.lockConfirmed(lock), .lockSeen(lockTx, confirmations: 3), SubmarineProviderStep()),
            (.paymentInFlight(lock, cltvLimit: 88), .paymentStarted, SubmarineProviderStep()),
            (.paid(lock, preimage: preimage), .payment(.succeeded(preimage: preimage), tipHeight: 203), SubmarineProviderStep()),
            (.claimBroadcast(lock, preimage: preimage, accepted), .claimPublished(tipHeight: 215), SubmarineProviderStep()),
            (.claimBroadcast(lock, preimage: preimage, accepted), .claimPrepared(claim), SubmarineProviderStep()),
            (.paymentFailed(lock, reason: "no route"), .payment(.failed(.noRoute), tipHeight: 203), SubmarineProviderStep()),
            (.claimed(minedClaimTxid: nil), .claimStatus(.confirmed(7, txid: claim.txid), tipHeight: 218), SubmarineProviderStep()),
        ])
    }

    func testEventsOutOfOrder() {
        assertTable([
            // The success overtakes the "started" report.
            (.paymentIntent(lock, cltvLimit: 88), .payment(.succeeded(preimage: preimage), tipHeight: 201),
             SubmarineProviderStep(next: .paid(lock, preimage: preimage), actions: [.prepareClaim(replacing: nil)])),
            (.paid(lock, preimage: preimage), .paymentStarted, SubmarineProviderStep()),
            (.paid(lock, preimage: preimage), .payment(.failed(.timeout), tipHeight: 201), SubmarineProviderStep()),
            // A failure report, then the success: the preimage is the proof, it is claimed for.
            (.paymentFailed(lock, reason: "timeout"), .payment(.succeeded(preimage: preimage), tipHeight: 205),
             SubmarineProviderStep(next: .paid(lock, preimage: preimage), actions: [.prepareClaim(replacing: nil)])),
            // Answers that arrive in the wrong state are dropped.
            (.accepted, .paymentReady(tipHeight: 200, nowUnix: Self.now), SubmarineProviderStep()),
            (.paid(lock, preimage: preimage), .claimStatus(.missing, tipHeight: 205), SubmarineProviderStep()),
            (.claimed(minedClaimTxid: nil), .lockSeen(lockTx, confirmations: 1), SubmarineProviderStep()),
            (.abandoned(.noLockInTime), .lockSeen(lockTx, confirmations: 2), SubmarineProviderStep()),
        ])
    }

    // MARK: reorgs

    func testAReorgBeforeThePaymentSendsTheSwapBackToWaiting() {
        let doubleSpend = Self.lockTransaction(coin: 1, value: 1_000, feeTag: 2_000)
        assertTable([
            (.lockConfirmed(lock), .lockMissing, SubmarineProviderStep(next: .accepted)),
            (.lockSeen(lock), .lockMissing, SubmarineProviderStep(next: .accepted)),
            (.lockConfirmed(lock), .lockSeen(lockTx, confirmations: 1), SubmarineProviderStep(next: .lockSeen(lock))),
            (.lockConfirmed(lock), .lockSeen(doubleSpend, confirmations: 1),
             SubmarineProviderStep(next: .lockMismatch(txid: doubleSpend.txid, .amountShort(agreedSat: Self.total, lockedSat: 1_000)))),
        ])
    }

    /// After the payment the lock is relayed again and the claim goes on to its depth.
    func testAReorgAfterThePaymentKeepsTheClaimGoing() {
        let accepted = claim.accepted(at: 211)
        assertTable([
            (.paymentInFlight(lock, cltvLimit: 88), .lockMissing, SubmarineProviderStep(actions: [.rebroadcastLock(lock)])),
            (.paid(lock, preimage: preimage), .lockMissing, SubmarineProviderStep(actions: [.rebroadcastLock(lock)])),
            (.claimBroadcast(lock, preimage: preimage, accepted), .lockMissing, SubmarineProviderStep(actions: [.rebroadcastLock(lock)])),
            // The claim left the chain with its lock: both go back, the claim as recorded (not due a bump yet) ...
            (.claimBroadcast(lock, preimage: preimage, accepted), .claimStatus(.missing, tipHeight: 212),
             SubmarineProviderStep(actions: [.rebroadcastLock(lock), .broadcastClaim(accepted)])),
            // ... or replaced once due.
            (.claimBroadcast(lock, preimage: preimage, accepted), .claimStatus(.missing, tipHeight: 214),
             SubmarineProviderStep(actions: [.rebroadcastLock(lock), .prepareClaim(replacing: accepted)])),
            // Confirmed once, then reorged back to the mempool: still followed, not final.
            (.claimBroadcast(lock, preimage: preimage, accepted), .claimStatus(.unconfirmed, tipHeight: 213), SubmarineProviderStep()),
            (.lockSeen(lock), .lockRefunded(txid: refundTxid, confirmations: 1), SubmarineProviderStep(next: .abandoned(.lockRefunded))),
        ])
    }

    // MARK: a late preimage

    /// No cutoff for the provider's claim: it has paid already and the payee knows the
    /// preimage, so a claim reveals nothing, and the claim path has no time lock. However
    /// late the preimage, even past the timeout (a race with the client's refund), it claims.
    func testALatePreimageIsStillClaimed() {
        let late = SubmarineClaim(transaction: claim.transaction, feeRate: claim.feeRate, fee: claim.fee, builtAtHeight: 301)
        assertTable([
            (.paymentInFlight(lock, cltvLimit: 88), .payment(.succeeded(preimage: preimage), tipHeight: 301),
             SubmarineProviderStep(next: .paid(lock, preimage: preimage), actions: [.prepareClaim(replacing: nil)])),
            (.paymentInFlight(lock, cltvLimit: 88), .payment(.succeeded(preimage: preimage), tipHeight: 294),
             SubmarineProviderStep(next: .paid(lock, preimage: preimage), actions: [.prepareClaim(replacing: nil)])),
            (.paid(lock, preimage: preimage), .claimPrepared(late),
             SubmarineProviderStep(next: .claimBroadcast(lock, preimage: preimage, late), actions: [.broadcastClaim(late)])),
            (.paid(lock, preimage: preimage), .block(height: 301, nowUnix: Self.now),
             SubmarineProviderStep(actions: [.prepareClaim(replacing: nil)])),
            (.paid(lock, preimage: preimage), .claimFailed, SubmarineProviderStep()),
            // The refund won once it is deep: an alarm, nothing more to do.
            (.paid(lock, preimage: preimage), .lockRefunded(txid: refundTxid, confirmations: 6),
             machine.step(.claimBroadcast(lock, preimage: preimage, late), .lockRefunded(txid: refundTxid, confirmations: 6))),
        ])
    }

    // MARK: the claim's fee

    /// `ClaimPolicy.bumpDue`: after 3 unconfirmed blocks, and at every block in the last 12.
    /// A bump near the timeout still goes out.
    func testTheClaimIsBumpedAsTheTimeoutNears() {
        let accepted = claim.accepted(at: 250)
        let lateBump = SubmarineClaim(transaction: bumped.transaction, feeRate: bumped.feeRate, fee: bumped.fee, builtAtHeight: 297)
        assertTable([
            (.claimBroadcast(lock, preimage: preimage, accepted), .claimStatus(.unconfirmed, tipHeight: 252), SubmarineProviderStep()),
            (.claimBroadcast(lock, preimage: preimage, accepted), .claimStatus(.unconfirmed, tipHeight: 253),
             SubmarineProviderStep(actions: [.prepareClaim(replacing: accepted)])),
            (.claimBroadcast(lock, preimage: preimage, claim.accepted(at: 288)), .claimStatus(.unconfirmed, tipHeight: 288),
             SubmarineProviderStep(actions: [.prepareClaim(replacing: claim.accepted(at: 288))])),
            // Never accepted by the node: a bump is due.
            (.claimBroadcast(lock, preimage: preimage, claim), .claimStatus(.unconfirmed, tipHeight: 211),
             SubmarineProviderStep(actions: [.prepareClaim(replacing: claim)])),
            (.claimBroadcast(lock, preimage: preimage, accepted), .claimPrepared(bumped),
             SubmarineProviderStep(next: .claimBroadcast(lock, preimage: preimage, bumped), actions: [.broadcastClaim(bumped)])),
            (.claimBroadcast(lock, preimage: preimage, accepted), .claimPrepared(lateBump),
             SubmarineProviderStep(next: .claimBroadcast(lock, preimage: preimage, lateBump), actions: [.broadcastClaim(lateBump)])),
            (.claimBroadcast(lock, preimage: preimage, accepted), .claimPublishFailed, SubmarineProviderStep()),
            (.claimBroadcast(lock, preimage: preimage, accepted), .claimFailed, SubmarineProviderStep()),
        ])
    }

    /// The version the chain holds 6 deep ends the swap and is named when it is an
    /// earlier one than the last signed (it confirmed before its bump): the books count its
    /// fee. A reorg before that depth only changes which version's depth arrives, so the
    /// note is taken at the end and never has to be cleared.
    func testTheClaimedStateNamesTheMinedVersionWhenItIsAnEarlierOne() throws {
        let bumping = SubmarineProviderState.claimBroadcast(lock, preimage: preimage, bumped.accepted(at: 255))
        assertTable([
            (bumping, .claimStatus(.confirmed(5, txid: claim.txid), tipHeight: 259), SubmarineProviderStep()),
            (bumping, .claimStatus(.confirmed(6, txid: claim.txid), tipHeight: 260),
             SubmarineProviderStep(next: .claimed(minedClaimTxid: claim.txid))),
            (bumping, .claimStatus(.confirmed(6, txid: bumped.txid), tipHeight: 260),
             SubmarineProviderStep(next: .claimed(minedClaimTxid: nil))),
            // Reorged out (the lock with it): relayed again; whichever version is then mined
            // 6 deep is the one the state names, as the rows above.
            (bumping, .claimStatus(.missing, tipHeight: 256), SubmarineProviderStep(actions: [.rebroadcastLock(lock),
                                                                                               .broadcastClaim(bumped.accepted(at: 255))])),
        ])
        // The stored form keeps the note, and an older record without it reads as the last version.
        let noted = SubmarineProviderState.claimed(minedClaimTxid: claim.txid)
        XCTAssertEqual(noted.eventData["mined_claim_txid"]?.stringValue, claim.txid.hex)
        XCTAssertEqual(try SubmarineProviderState(kind: "claimed", data: noted.eventData), noted)
        XCTAssertEqual(try SubmarineProviderState(kind: "claimed", data: .object([:])), .claimed(minedClaimTxid: nil))
        XCTAssertThrowsError(try SubmarineProviderState(kind: "claimed", data: .object(["mined_claim_txid": .string("zz")])))
    }

    func testARefundThatBeatsTheClaimEndsTheSwapWithAnAlarmOnceDeep() {
        let alarm = SubmarineProviderAction.raiseAlarm(
            "lock \(lock.txid) was refunded by \(refundTxid) after the invoice was paid: the claim lost; this swap loses the "
                + "invoice amount and its routing fee")
        let lost = SubmarineProviderState.claimLost(lock, spendingTxid: refundTxid)
        assertTable([
            (.claimBroadcast(lock, preimage: preimage, claim), .lockRefunded(txid: refundTxid, confirmations: 5), SubmarineProviderStep()),
            (.claimBroadcast(lock, preimage: preimage, claim), .lockRefunded(txid: refundTxid, confirmations: 6),
             SubmarineProviderStep(next: lost, actions: [alarm])),
            (.paid(lock, preimage: preimage), .lockRefunded(txid: refundTxid, confirmations: 6),
             SubmarineProviderStep(next: lost, actions: [alarm])),
        ])
    }

    // MARK: the stored form

    /// Every state, through its event's bytes and back: the last event alone rebuilds it.
    func testEveryStateRoundTripsThroughItsStoredEvent() throws {
        let variants: [SubmarineProviderState] = allStates + [
            .claimBroadcast(lock, preimage: preimage, claim.accepted(at: 211)),
            .abandoned(.lockRefunded), .abandoned(.invoiceExpired(expiresAtUnix: Self.expiresAt)),
            .abandoned(.noRouteUnderCLTVLimit(cltvLimit: -4, minFinalCLTVExpiry: 80)),
            .lockMismatch(txid: lockTx.txid, .amountShort(agreedSat: Self.total, lockedSat: Self.total - 1)),
            .lockMismatch(txid: lockTx.txid, .amountOver(agreedSat: Self.total, lockedSat: Self.total + 1)),
        ]
        for state in variants {
            let data = try JSONParser.parse(state.eventData.canonicalBytes)
            XCTAssertEqual(try SubmarineProviderState(kind: state.kind.rawValue, data: data), state, state.kind.rawValue)
        }
    }

    func testACorruptRecordIsRefusedWithWhatIsMissing() {
        func refusal(_ kind: String, _ data: JSONValue) -> String? {
            do {
                _ = try SubmarineProviderState(kind: kind, data: data)
                return nil
            } catch {
                return error.description
            }
        }
        XCTAssertEqual(refusal("teleported", .object([:])),
                       "stored provider swap data cannot be read: unknown submarine provider event teleported")
        XCTAssertEqual(refusal("payment_intent", .object([:])), "stored provider swap data cannot be read: payment_intent without its lock")
        XCTAssertEqual(refusal("payment_intent", .object(["lock": lock.json])),
                       "stored provider swap data cannot be read: payment_intent without its CLTV limit")
        XCTAssertEqual(refusal("paid", .object(["lock": lock.json, "preimage": .string(String(preimage.hex.dropLast(2)))])),
                       "stored provider swap data cannot be read: paid without its preimage")
        // A lock whose recorded value is not its output's is not trusted.
        var members = ["tx": JSONValue.string(lockTx.serialized.hex), "vout": .integer(1), "value_sat": .integer(Self.total + 1)]
        XCTAssertEqual(refusal("lock_seen", .object(["lock": .object(members)])),
                       "stored provider swap data cannot be read: submarine lock")
        members["value_sat"] = .integer(Self.total)
        XCTAssertEqual(refusal("lock_seen", .object(["lock": .object(members)])), nil)
    }

    // MARK: a failed payment

    func testAFailedPaymentEndsOnceTheClientsCoinsAreItsOwnAgain() {
        let failed = SubmarineProviderState.paymentFailed(lock, reason: PaymentUpdate.FailureReason.noRoute.description)
        assertTable([
            (.paymentInFlight(lock, cltvLimit: 88), .payment(.failed(.noRoute), tipHeight: 203), SubmarineProviderStep(next: failed)),
            (.paymentIntent(lock, cltvLimit: 88), .payment(.failed(.noRoute), tipHeight: 203), SubmarineProviderStep(next: failed)),
            (failed, .block(height: 299, nowUnix: Self.now), SubmarineProviderStep(actions: [.trackPayment])),
            (failed, .block(height: 300, nowUnix: Self.now), SubmarineProviderStep(next: .released)),
            (failed, .lockRefunded(txid: refundTxid, confirmations: 0), SubmarineProviderStep()),
            (failed, .lockRefunded(txid: refundTxid, confirmations: 1), SubmarineProviderStep(next: .released)),
        ])
    }

    func testFinalStatesIgnoreEverything() {
        let inputs: [SubmarineProviderInput] = [
            .block(height: 400, nowUnix: Self.now), .lockSeen(lockTx, confirmations: 9), .lockMissing,
            .payment(.succeeded(preimage: preimage), tipHeight: 200), .claimPrepared(claim), .claimStatus(.missing, tipHeight: 200),
        ]
        for state in allStates where state.isFinal {
            for input in inputs { XCTAssertEqual(machine.step(state, input), SubmarineProviderStep(), "\(state.kind.rawValue) + \(input)") }
        }
        XCTAssertEqual(allStates.filter(\.isFinal).map(\.kind), [.claimed, .abandoned, .lockMismatch, .released, .claimLost])
    }
}
