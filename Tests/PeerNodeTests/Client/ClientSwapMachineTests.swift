import Bitcoin
import HTLC
import Lightning
@testable import PeerNode
import XCTest

/// The client swap machine as tables: each phase against every input that matters, and
/// every phase against `recover`. No I/O: what the machine asks for is what is checked.
final class ClientSwapMachineTests: XCTestCase {
    private let settings = ClientSwapMachine.Settings(requiredConfirmations: 1, completionConfirmations: 2, giveUpSeconds: 600)

    private static func transaction(_ tag: UInt8, outputs: Int = 1, value: Int64 = 50_000) -> Transaction {
        let input = TransactionInput(previousOutput: OutPoint(txid: try! TransactionID(bytes: [UInt8](repeating: tag, count: 32)),
                                                              index: 0), sequence: TransactionInput.replaceableSequence)
        let out = TransactionOutput(value: value, scriptPubKey: Address.p2wpkh(pubkeyHash: [UInt8](repeating: tag, count: 20)).script)
        return Transaction(version: 2, inputs: [input], outputs: Array(repeating: out, count: outputs), lockTime: 0)
    }

    /// The contract's timeout height: a first claim may go out up to height 193.
    private static let timeout = 200
    private let lockTx = transaction(1)
    private let otherLockTx = transaction(2)
    private let claimTx = transaction(3)
    /// A fee bump of `claimTx`: 1,000 sat less to the destination.
    private let bumpTx = transaction(4, value: 49_000)

    private func sighting(_ tx: Transaction? = nil, confirmations: Int = 0) -> ClientLockSighting {
        ClientLockSighting(transaction: tx ?? lockTx, outputIndex: 0, confirmations: confirmations, source: .push)
    }

    private var verified: LockOutput { LockOutput(outPoint: OutPoint(txid: lockTx.txid, index: 0), value: 50_000) }

    /// A cooperative round for `verified` (its values need not verify: the machine only records them).
    private static let coopNonce = try! MuSig2SecretNonce(publicKey: PrivateKey([UInt8](repeating: 9, count: 32)).publicKey).publicNonce
    private var coopRound: CoopRound {
        CoopRound(record: CoopRequestedRecord(publicNonce: Self.coopNonce, sighash: [UInt8](repeating: 5, count: 32),
                                                             unsignedTransaction: claimTx),
                                 scriptPathOutputSat: 49_000, scriptPathVirtualSize: 152)
    }

    /// A machine brought to `phase` through the inputs a real swap sees.
    private func machine(at phase: ClientSwapPhase, settings: ClientSwapMachine.Settings? = nil) -> ClientSwapMachine {
        var machine = ClientSwapMachine(settings: settings ?? self.settings)
        let path: [ClientSwapInput]
        switch phase {
        case .quoted: path = []
        case .accepted: path = [.acceptVerified(timeoutHeight: Self.timeout)]
        case .payStarted: path = [.acceptVerified(timeoutHeight: Self.timeout), .paymentStarting(atUnix: 1_000)]
        case .paymentInFlight: path = [.acceptVerified(timeoutHeight: Self.timeout), .paymentStarting(atUnix: 1_000), .payment(.inFlight)]
        case .lockSeen: path = [.acceptVerified(timeoutHeight: Self.timeout), .paymentStarting(atUnix: 1_000), .lockSeen(sighting())]
        case .lockVerified: path = [.acceptVerified(timeoutHeight: Self.timeout), .paymentStarting(atUnix: 1_000), .lockSeen(sighting()), .lockVerified(verified)]
        case .coopRequested:
            path = [.acceptVerified(timeoutHeight: Self.timeout), .paymentStarting(atUnix: 1_000), .lockSeen(sighting(confirmations: 1)),
                    .lockVerified(verified), .coopPrepared(coopRound)]
        case .claimBroadcast:
            path = [.acceptVerified(timeoutHeight: Self.timeout), .paymentStarting(atUnix: 1_000), .lockSeen(sighting(confirmations: 1)),
                    .lockVerified(verified), .claimSigned(claimTx)]
        case .claimConfirmed:
            path = [.acceptVerified(timeoutHeight: Self.timeout), .paymentStarting(atUnix: 1_000), .lockSeen(sighting(confirmations: 1)),
                    .lockVerified(verified), .claimSigned(claimTx), .claimConfirmations(1)]
        case .completed:
            path = [.acceptVerified(timeoutHeight: Self.timeout), .paymentStarting(atUnix: 1_000), .lockSeen(sighting(confirmations: 1)),
                    .lockVerified(verified), .claimSigned(claimTx), .claimConfirmations(2)]
        case .failed: path = [.refused("no")]
        case .abandoned: path = [.acceptVerified(timeoutHeight: Self.timeout), .paymentStarting(atUnix: 1_000), .giveUp]
        }
        for input in path { _ = machine.handle(input) }
        XCTAssertEqual(machine.phase, phase, "the path does not reach \(phase)")
        return machine
    }

    private func phases(_ actions: [ClientSwapAction]) -> [ClientSwapPhase] {
        actions.compactMap { if case .persist(let state) = $0 { return state.phase } else { return nil } }
    }

    private func buildsOrBroadcastsClaim(_ actions: [ClientSwapAction]) -> Bool {
        actions.contains {
            switch $0 {
            case .buildClaim, .broadcastClaim, .pushPreimage, .maintainClaim: return true
            default: return false
            }
        }
    }

    // MARK: recover, every phase

    func testRecoverInEveryPhase() {
        struct Row {
            let phase: ClientSwapPhase
            let next: ClientSwapPhase
            let actions: (ClientSwapMachineTests) -> [ClientSwapAction]?
        }
        let rows: [Row] = [
            Row(phase: .quoted, next: .failed, actions: { _ in nil }),
            Row(phase: .accepted, next: .failed, actions: { _ in nil }),
            Row(phase: .payStarted, next: .payStarted,
                actions: { _ in [.pay(resuming: true), .armGiveUpTimer(deadlineUnix: 1_600), .lookForLock] }),
            Row(phase: .paymentInFlight, next: .paymentInFlight,
                actions: { _ in [.pay(resuming: true), .armGiveUpTimer(deadlineUnix: 1_600), .lookForLock] }),
            Row(phase: .lockSeen, next: .lockSeen,
                actions: { $0.lockSeenRecoverActions }),
            Row(phase: .lockVerified, next: .lockVerified, actions: { _ in [.checkChain] }),
            // The round's nonce died with the process: never resumed; the script path.
            Row(phase: .coopRequested, next: .coopRequested, actions: { test in
                var state = test.machine(at: .coopRequested).state
                state.coopFallback = "the node restarted during the cooperative round (its nonce is gone)"
                return [.persist(state), .checkChain, .buildFallbackClaim(test.verified)]
            }),
            Row(phase: .claimBroadcast, next: .claimBroadcast,
                actions: { [.resumeClaim($0.claimTx, revealBefore: 194), .checkChain] }),
            Row(phase: .claimConfirmed, next: .claimConfirmed, actions: { _ in [.pushPreimage, .checkChain] }),
            Row(phase: .completed, next: .completed, actions: { _ in [] }),
            Row(phase: .failed, next: .failed, actions: { _ in [] }),
            Row(phase: .abandoned, next: .abandoned, actions: { _ in [] }),
        ]
        XCTAssertEqual(Set(rows.map(\.phase)), Set(ClientSwapPhase.allCases), "every phase has a recover row")
        for row in rows {
            var machine = machine(at: row.phase)
            let actions = machine.handle(.recover)
            XCTAssertEqual(machine.phase, row.next, "recover in \(row.phase)")
            if let expected = row.actions(self) {
                XCTAssertEqual(actions, expected, "recover in \(row.phase)")
            } else {
                XCTAssertEqual(phases(actions), [.failed], "recover in \(row.phase)")
                XCTAssertEqual(machine.state.outcome?.funds, .neverSent, "recover in \(row.phase)")
                XCTAssertEqual(actions.last, .finish)
            }
        }
    }

    private var lockSeenRecoverActions: [ClientSwapAction] {
        [.armGiveUpTimer(deadlineUnix: 1_600), .verifyLock(sighting())]
    }

    func testRecoverWithADeepVerifiedLockClaims() {
        var machine = machine(at: .lockVerified)
        _ = machine.handle(.lockSeen(sighting(confirmations: 1)))
        var restarted = ClientSwapMachine(settings: settings, state: machine.state)
        XCTAssertEqual(restarted.handle(.recover),
                       [.checkChain, .buildClaim(verified)])
    }

    // MARK: the happy path

    func testHappyPathPersistsEachStepBeforeItsAct() {
        var machine = ClientSwapMachine(settings: settings)
        XCTAssertEqual(phases(machine.handle(.acceptVerified(timeoutHeight: Self.timeout))), [.accepted])
        let pay = machine.handle(.paymentStarting(atUnix: 1_000))
        XCTAssertEqual(phases(pay), [.payStarted])
        XCTAssertEqual(Array(pay.dropFirst()), [.pay(resuming: false), .armGiveUpTimer(deadlineUnix: 1_600)])
        XCTAssertEqual(phases(machine.handle(.payment(.inFlight))), [.paymentInFlight])
        let seen = machine.handle(.lockSeen(sighting()))
        XCTAssertEqual(phases(seen), [.lockSeen])
        XCTAssertEqual(seen.last, .verifyLock(sighting()))
        XCTAssertEqual(machine.handle(.lockVerified(verified)).count, 1, "not deep enough: persist only")
        XCTAssertEqual(machine.handle(.block(height: 10)), [.checkChain])
        let deep = machine.handle(.lockSeen(sighting(confirmations: 1)))
        XCTAssertEqual(deep.last, .buildClaim(verified))
        let claim = machine.handle(.claimSigned(claimTx))
        XCTAssertEqual(phases(claim), [.claimBroadcast])
        XCTAssertEqual(machine.state.claim, claimTx, "the claim is in the persisted state")
        XCTAssertEqual(Array(claim.dropFirst()), [.broadcastClaim(claimTx)], "no push before the node accepts the claim")
        let accepted = machine.handle(.claimAccepted(tipHeight: 10))
        XCTAssertEqual(phases(accepted), [.claimBroadcast])
        XCTAssertEqual(accepted.last, .pushPreimage)
        XCTAssertTrue(machine.state.claimAccepted)
        XCTAssertEqual(machine.handle(.block(height: 11)), [.maintainClaim(tipHeight: 11)])
        XCTAssertEqual(machine.handle(.giveUp), [], "a claim is out: giving up is no longer possible")
        XCTAssertEqual(phases(machine.handle(.claimConfirmations(1))), [.claimConfirmed])
        let done = machine.handle(.claimConfirmations(2))
        XCTAssertEqual(phases(done), [.completed])
        XCTAssertEqual(done.last, .finish)
        XCTAssertEqual(machine.state.outcome?.funds, .delivered)
        XCTAssertEqual(machine.handle(.block(height: 12)), [], "nothing after the end")
    }

    func testZeroConfClaimsOnTheFirstSighting() {
        var machine = machine(at: .lockSeen, settings: ClientSwapMachine.Settings(requiredConfirmations: 0))
        let actions = machine.handle(.lockVerified(verified))
        XCTAssertEqual(phases(actions), [.lockVerified])
        XCTAssertEqual(actions.last, .buildClaim(verified))
    }

    func testFeeBumpIsPersistedBeforeItIsBroadcast() {
        var machine = machine(at: .claimBroadcast)
        let actions = machine.handle(.claimSigned(bumpTx))
        XCTAssertEqual(phases(actions), [.claimBroadcast])
        XCTAssertEqual(actions.last, .broadcastClaim(bumpTx))
        XCTAssertEqual(machine.state.claim, bumpTx)
        // A second signing that pays no more fee (two builds raced) replaces nothing.
        XCTAssertEqual(machine.handle(.claimSigned(Self.transaction(5, value: 49_000))), [])
        XCTAssertEqual(machine.state.claim, bumpTx)
    }

    /// Audit M-3: the tip at which the node first accepted each claim version is kept
    /// (persisted), so the engine bumps a version unconfirmed for 3 blocks; a bump starts
    /// the count again. Older records lack it.
    func testEachClaimVersionRecordsTheTipAtWhichTheNodeAcceptedIt() throws {
        var machine = machine(at: .claimBroadcast)
        XCTAssertEqual(phases(machine.handle(.claimAccepted(tipHeight: 10))), [.claimBroadcast])
        XCTAssertEqual(machine.state.claimVersionAcceptedHeight, 10)
        XCTAssertEqual(machine.handle(.claimAccepted(tipHeight: 11)), [.pushPreimage], "a rebroadcast keeps the first tip")
        XCTAssertEqual(machine.state.claimVersionAcceptedHeight, 10)
        XCTAssertEqual(try ClientSwapState(kind: "claim_broadcast", data: machine.state.json).claimVersionAcceptedHeight, 10)
        _ = machine.handle(.claimSigned(bumpTx))
        XCTAssertNil(machine.state.claimVersionAcceptedHeight, "a new version counts from its own acceptance")
        XCTAssertEqual(phases(machine.handle(.claimAccepted(tipHeight: 13))), [.claimBroadcast])
        XCTAssertEqual(machine.state.claimVersionAcceptedHeight, 13)
        var members = machine.state.json.objectValue ?? [:]
        members["claim_version_accepted_height"] = nil
        XCTAssertNil(try ClientSwapState(kind: "claim_broadcast", data: .object(members)).claimVersionAcceptedHeight)
    }

    // MARK: revealing the preimage (audit H-3)

    /// The preimage goes to the provider only after the client's own node accepted the
    /// claim: a claim it refuses (a lock it does not hold) is retried, never pushed.
    func testThePreimageIsPushedOnlyAfterTheNodeAcceptsTheClaim() {
        var machine = machine(at: .lockVerified, settings: ClientSwapMachine.Settings(requiredConfirmations: 0))
        var actions = machine.handle(.claimSigned(claimTx))
        XCTAssertEqual(actions.last, .broadcastClaim(claimTx))
        // The broadcast failed (no acceptance): blocks retry the broadcast, nothing else.
        for height in 10...12 {
            let retry = machine.handle(.block(height: height))
            XCTAssertEqual(retry, [.resumeClaim(claimTx, revealBefore: 194)], "at \(height)")
            actions += retry
        }
        actions += machine.handle(.giveUp) + machine.handle(.payment(.inFlight))
        XCTAssertFalse(actions.contains(.pushPreimage), "\(actions)")
        XCTAssertFalse(machine.state.claimAccepted)
        var resumed = ClientSwapMachine(settings: machine.settings, state: machine.state)
        XCTAssertFalse(resumed.handle(.recover).contains(.pushPreimage), "a resumed, unaccepted claim is not pushed")
        XCTAssertEqual(machine.handle(.claimAccepted(tipHeight: 13)).last, .pushPreimage)
    }

    // MARK: claim versions (audit L-1)

    /// Every claim version signed is kept (persisted); a confirmation of any of them, not
    /// only the latest, moves the swap on. A transaction that is not one of ours does not.
    func testAnyClaimVersionThatConfirmsCounts() throws {
        var machine = machine(at: .claimBroadcast)
        _ = machine.handle(.claimAccepted(tipHeight: 10))
        _ = machine.handle(.claimSigned(bumpTx))
        XCTAssertEqual(machine.state.claimTxids, [claimTx.txid, bumpTx.txid])
        XCTAssertEqual(try ClientSwapState(kind: "claim_broadcast", data: machine.state.json).claimTxids,
                       [claimTx.txid, bumpTx.txid], "the versions survive the stored form")
        XCTAssertEqual(machine.handle(.claimVersionConfirmations(otherLockTx.txid, 1)), [], "not a claim of ours")
        XCTAssertEqual(machine.phase, .claimBroadcast)
        let first = machine.handle(.claimVersionConfirmations(claimTx.txid, 1))
        XCTAssertEqual(phases(first), [.claimConfirmed])
        XCTAssertEqual(first.last, .pushPreimage)
        XCTAssertEqual(phases(machine.handle(.claimVersionConfirmations(claimTx.txid, 2))), [.completed])
        XCTAssertEqual(machine.state.outcome?.funds, .delivered)
        // The books count the version that paid: the final state names it, stored form included.
        XCTAssertEqual(machine.state.minedClaimTxid, claimTx.txid)
        XCTAssertEqual(try ClientSwapState(kind: "completed", data: machine.state.json).minedClaimTxid, claimTx.txid)
    }

    /// The last version mined needs no note; a mined earlier version reorged out is no
    /// longer the one that paid.
    func testTheMinedClaimVersionIsNotedOnlyWhenItIsAnEarlierOne() throws {
        var machine = machine(at: .claimBroadcast)
        _ = machine.handle(.claimAccepted(tipHeight: 10))
        _ = machine.handle(.claimSigned(bumpTx))
        _ = machine.handle(.claimVersionConfirmations(bumpTx.txid, 1))
        XCTAssertNil(machine.state.minedClaimTxid)
        var other = self.machine(at: .claimBroadcast)
        _ = other.handle(.claimAccepted(tipHeight: 10))
        _ = other.handle(.claimSigned(bumpTx))
        _ = other.handle(.claimVersionConfirmations(claimTx.txid, 1))
        XCTAssertEqual(other.state.minedClaimTxid, claimTx.txid)
        _ = other.handle(.claimVersionConfirmations(claimTx.txid, 0))
        XCTAssertNil(other.state.minedClaimTxid, "reorged out")
    }

    // MARK: deadlines in blocks (audit H-1)

    /// A verified lock waiting for its confirmations is not given up by the wall-clock
    /// timer (mainnet asks 2 confirmations, more than 10 minutes): it is claimed when the
    /// confirmations come, while the claim rule holds.
    func testAVerifiedLockAwaitingConfirmationsOutlivesTheGiveUpTimer() {
        let twoConfirmations = ClientSwapMachine.Settings(requiredConfirmations: 2, completionConfirmations: 1, giveUpSeconds: 600)
        var machine = machine(at: .lockSeen, settings: twoConfirmations)
        _ = machine.handle(.lockSeen(sighting(confirmations: 1)))
        _ = machine.handle(.lockVerified(verified))
        XCTAssertEqual(machine.phase, .lockVerified)
        XCTAssertEqual(machine.handle(.giveUp), [], "a verified lock is waited for in blocks")
        XCTAssertEqual(machine.phase, .lockVerified)
        var restarted = ClientSwapMachine(settings: twoConfirmations, state: machine.state)
        XCTAssertEqual(restarted.handle(.recover), [.checkChain], "no wall-clock deadline re-armed on resume")
        XCTAssertEqual(machine.handle(.block(height: 150)), [.checkChain])
        XCTAssertEqual(machine.handle(.lockSeen(sighting(confirmations: 2))).last, .buildClaim(verified))
    }

    /// When the claim rule closes (timeout − tip ≤ 6) before the lock has its
    /// confirmations, the swap ends without a claim: the preimage stays secret, the
    /// provider refunds and cancels, and the payment returns.
    func testAVerifiedLockStillShallowWhenTheClaimRuleClosesEndsUnrevealed() {
        let twoConfirmations = ClientSwapMachine.Settings(requiredConfirmations: 2)
        var machine = machine(at: .lockSeen, settings: twoConfirmations)
        _ = machine.handle(.lockVerified(verified))
        XCTAssertEqual(machine.handle(.block(height: Self.timeout - 7)), [.checkChain], "7 blocks left: still waiting")
        let closed = machine.handle(.block(height: Self.timeout - TimelockPolicy.firstClaimCutoff))
        XCTAssertEqual(phases(closed), [.failed])
        XCTAssertEqual(closed.last, .finish)
        XCTAssertEqual(machine.state.outcome?.funds, .heldUntilCancelled)
        XCTAssertTrue(machine.state.outcome?.description.contains("never revealed") == true, "\(String(describing: machine.state.outcome))")
        XCTAssertFalse(buildsOrBroadcastsClaim(closed + machine.handle(.lockSeen(sighting(confirmations: 2)))))
        // Still waiting for a lock when the rule closes: no lock can be claimed any more.
        var waiting = self.machine(at: .paymentInFlight)
        XCTAssertEqual(phases(waiting.handle(.block(height: Self.timeout - 6))), [.abandoned])
        XCTAssertEqual(waiting.state.outcome?.funds, .heldUntilCancelled)
    }

    /// A swap that ended "held" while its payment had failed back already (the lock's
    /// check won the race with the payment's tracking after a restart) is written as
    /// returned; any other ending is left as it is.
    func testAHeldEndingBecomesReturnedOnlyWhenTheSwapEndedHeld() {
        var machine = machine(at: .lockSeen)
        _ = machine.handle(.lockRejected("the lock is spent"))
        XCTAssertEqual(machine.state.outcome?.funds, .heldUntilCancelled)
        let reason = machine.state.outcome?.reason
        machine.paymentReturnedAtEnd()
        XCTAssertEqual(machine.state.outcome?.funds, .returned)
        XCTAssertEqual(machine.state.outcome?.reason, reason, "the reason is kept")
        XCTAssertEqual(machine.phase, .failed)

        var running = self.machine(at: .lockSeen)
        running.paymentReturnedAtEnd()
        XCTAssertNil(running.state.outcome, "a running swap has no fate to change")
        var neverSent = self.machine(at: .accepted)
        _ = neverSent.handle(.refused("no"))
        neverSent.paymentReturnedAtEnd()
        XCTAssertEqual(neverSent.state.outcome?.funds, .neverSent)
    }

    // MARK: the lock spent by another transaction

    /// A transaction spending the lock that is none of our claims (the provider's refund).
    private var refundTxid: TransactionID { Self.transaction(7).txid }

    /// A claim out (after a cooperative round, or signed) whose lock the provider refunded:
    /// the claim can never confirm. Once the refund is `spenderFinalDepth` deep the swap
    /// ends, saying the payment may be the provider's when the preimage may have reached it
    /// (a recorded round, a claim the node accepted); before that depth a reorg could bring
    /// the lock back, so nothing changes. Without this input a restarted client rebroadcast
    /// its doomed claim forever (the `never-claims-after-round` scenario).
    func testALockSpentByAnotherTransactionEndsTheSwapOnceDeep() {
        let deep = ClientSwapMachine.spenderFinalDepth
        var round = machine(at: .coopRequested)
        XCTAssertEqual(round.handle(.lockSpentElsewhere(refundTxid, confirmations: deep - 1)), [])
        XCTAssertEqual(round.phase, .coopRequested)
        let ended = round.handle(.lockSpentElsewhere(refundTxid, confirmations: deep))
        XCTAssertEqual(phases(ended), [.failed])
        XCTAssertEqual(ended.last, .finish)
        XCTAssertFalse(buildsOrBroadcastsClaim(ended))
        XCTAssertEqual(round.state.outcome?.funds, .refundedAfterReveal, "a recorded round may have sent the preimage")
        XCTAssertTrue(round.state.outcome?.reason.contains(refundTxid.hex) == true, "\(round.state.outcome?.reason ?? "")")

        // Restarted in the round, the fallback claim is out and refused: the refund ends it.
        var restarted = ClientSwapMachine(settings: settings, state: machine(at: .coopRequested).state)
        _ = restarted.handle(.recover)
        _ = restarted.handle(.claimSigned(claimTx))
        XCTAssertEqual(restarted.phase, .claimBroadcast)
        XCTAssertEqual(restarted.handle(.block(height: Self.timeout + 10)), [.maintainClaim(tipHeight: Self.timeout + 10)],
                       "after a round the claim goes out at any height, and is bumped")
        _ = restarted.handle(.lockSpentElsewhere(refundTxid, confirmations: deep + 40))
        XCTAssertEqual(restarted.phase, .failed)
        XCTAssertEqual(restarted.state.outcome?.funds, .refundedAfterReveal)
        restarted.paymentReturnedAtEnd()
        XCTAssertEqual(restarted.state.outcome?.funds, .returned, "a payment that failed back decides the fate")

        // A claim this node never accepted, without a round: the preimage never left.
        var unaccepted = machine(at: .claimBroadcast)
        _ = unaccepted.handle(.lockSpentElsewhere(refundTxid, confirmations: deep))
        XCTAssertEqual(unaccepted.state.outcome?.funds, .heldUntilCancelled)
        // One the node accepted was public in its mempool.
        var accepted = machine(at: .claimBroadcast)
        _ = accepted.handle(.claimAccepted(tipHeight: 150))
        _ = accepted.handle(.lockSpentElsewhere(refundTxid, confirmations: deep))
        XCTAssertEqual(accepted.state.outcome?.funds, .refundedAfterReveal)

        // Our own claim spending the lock is never "another transaction".
        var own = machine(at: .claimBroadcast)
        XCTAssertEqual(own.handle(.lockSpentElsewhere(claimTx.txid, confirmations: deep)), [])
        XCTAssertEqual(own.phase, .claimBroadcast)
        // The engine calls a spender ours when it is on record or reveals the preimage (an
        // earlier version an older record did not keep): only the rest is "elsewhere".
        let preimage = [UInt8](repeating: 0xAB, count: 32)
        var revealing = Self.transaction(8)
        revealing.inputs[0].witness = Witness([[1, 2], preimage, [3]])
        XCTAssertTrue(own.state.isOwnClaim(claimTx, preimage: preimage))
        XCTAssertTrue(own.state.isOwnClaim(revealing, preimage: preimage))
        XCTAssertFalse(own.state.isOwnClaim(Self.transaction(7), preimage: preimage))
        // Before a claim is out, the claim rule ends the swap (at timeout − 6, before any refund).
        var waiting = machine(at: .lockVerified)
        XCTAssertEqual(waiting.handle(.lockSpentElsewhere(refundTxid, confirmations: deep)), [])
        XCTAssertEqual(waiting.phase, .lockVerified)
    }

    // MARK: the claim rule on resume (audit H-2)

    /// A claim the node never accepted is resumed only within the claim rule (the engine
    /// broadcasts it below timeout − 6); past it the swap ends without revealing. A claim
    /// accepted past the rule is public but not pushed; its confirmation pushes.
    func testAResumedClaimIsRevealedOnlyWithinTheClaimRule() {
        var machine = ClientSwapMachine(settings: settings, state: machine(at: .claimBroadcast).state)
        let resumed = machine.handle(.recover)
        XCTAssertEqual(resumed, [.resumeClaim(claimTx, revealBefore: Self.timeout - TimelockPolicy.firstClaimCutoff), .checkChain])
        XCTAssertFalse(resumed.contains(.pushPreimage))
        let late = machine.handle(.claimTooLate(tipHeight: 194))
        XCTAssertEqual(phases(late), [.failed])
        XCTAssertEqual(machine.state.outcome?.funds, .heldUntilCancelled)
        XCTAssertFalse(buildsOrBroadcastsClaim(late))

        // The node held the claim all along (public): accepted, rebroadcast, no push past the rule.
        var held = ClientSwapMachine(settings: settings, state: self.machine(at: .claimBroadcast).state)
        let accepted = held.handle(.claimAccepted(tipHeight: 194))
        XCTAssertEqual(phases(accepted), [.claimBroadcast])
        XCTAssertFalse(accepted.contains(.pushPreimage), "6 blocks left: the provider may be refunding")
        XCTAssertEqual(held.handle(.claimTooLate(tipHeight: 195)), [], "an accepted claim is never given up")
        XCTAssertEqual(held.handle(.block(height: 195)), [.maintainClaim(tipHeight: 195)])
        var restarted = ClientSwapMachine(settings: settings, state: held.state)
        XCTAssertEqual(restarted.handle(.recover), [.broadcastClaim(claimTx), .checkChain],
                       "an accepted claim is rebroadcast at any height")
        XCTAssertEqual(restarted.handle(.claimAccepted(tipHeight: 201)), [])
        XCTAssertEqual(restarted.handle(.claimConfirmations(1)).last, .pushPreimage, "confirmed: the lock is ours")
        // Within the rule the acceptance pushes.
        var early = ClientSwapMachine(settings: settings, state: self.machine(at: .claimBroadcast).state)
        XCTAssertEqual(early.handle(.claimAccepted(tipHeight: 193)).last, .pushPreimage)
    }

    /// A verified lock is claimed again at the next block when the engine deferred the
    /// claim (its node did not hold the lock yet).
    func testADeferredClaimIsTriedAgainAtTheNextBlock() {
        var machine = machine(at: .lockVerified, settings: ClientSwapMachine.Settings(requiredConfirmations: 0))
        XCTAssertEqual(machine.handle(.block(height: 10)), [.checkChain, .buildClaim(verified)])
    }

    func testAReorgedClaimIsBroadcastAgain() {
        var machine = machine(at: .claimConfirmed)
        let actions = machine.handle(.claimConfirmations(0))
        XCTAssertEqual(phases(actions), [.claimBroadcast])
        XCTAssertEqual(actions.last, .broadcastClaim(claimTx))
    }

    // MARK: wrong locks

    func testAWrongLockNeverLeadsToAClaim() {
        for start in [ClientSwapPhase.payStarted, .paymentInFlight] {
            var machine = machine(at: start)
            var actions = machine.handle(.lockSeen(sighting(confirmations: 3)))
            actions += machine.handle(.lockRejected("the lock pays 40000 sat, 50000 agreed"))
            XCTAssertEqual(machine.phase, .failed)
            XCTAssertEqual(machine.state.outcome?.funds, .heldUntilCancelled)
            // Whatever comes after: the lock again, blocks, a restart, a signed claim.
            for input: ClientSwapInput in [.lockSeen(sighting(confirmations: 6)), .block(height: 99), .recover,
                                           .claimSigned(claimTx), .lockVerified(verified), .claimConfirmations(1)] {
                actions += machine.handle(input)
            }
            XCTAssertFalse(buildsOrBroadcastsClaim(actions), "from \(start): \(actions)")
            XCTAssertEqual(machine.phase, .failed)
        }
    }

    func testAReplacedLockIsVerifiedAgainBeforeAnyClaim() {
        var machine = machine(at: .lockVerified)
        let actions = machine.handle(.lockSeen(sighting(otherLockTx, confirmations: 5)))
        XCTAssertEqual(phases(actions), [.lockSeen])
        XCTAssertEqual(actions.last, .verifyLock(sighting(otherLockTx, confirmations: 5)))
        XCTAssertFalse(buildsOrBroadcastsClaim(actions))
        XCTAssertNil(machine.state.verifiedLock)
        XCTAssertEqual(machine.handle(.lockRejected("script")).last, .finish)
        XCTAssertEqual(machine.phase, .failed)
    }

    func testASignedClaimBeforeVerificationIsIgnored() {
        for phase in [ClientSwapPhase.quoted, .accepted, .payStarted, .paymentInFlight, .lockSeen] {
            var machine = machine(at: phase)
            XCTAssertEqual(machine.handle(.claimSigned(claimTx)), [], "in \(phase)")
            XCTAssertEqual(machine.phase, phase)
        }
    }

    // MARK: endings

    func testGiveUpAbandonsEveryPhaseWaitingForALock() {
        for phase in [ClientSwapPhase.payStarted, .paymentInFlight] {
            var machine = machine(at: phase)
            let actions = machine.handle(.giveUp)
            XCTAssertEqual(phases(actions), [.abandoned], "in \(phase)")
            XCTAssertEqual(machine.state.outcome?.funds, .heldUntilCancelled)
            XCTAssertEqual(actions.last, .finish)
        }
        // A lock seen (its check under way) or verified is waited for in blocks, as
        // docs/HTLC.md H-1 says: mainnet-pace abandoned a lock seen 5 s before the
        // deadline while it was being checked. A claim out is followed to the end.
        for phase in [ClientSwapPhase.lockSeen, .lockVerified, .claimBroadcast, .claimConfirmed] {
            var machine = machine(at: phase)
            XCTAssertEqual(machine.handle(.giveUp), [], "in \(phase)")
        }
    }

    func testFailedPaymentsReturnTheFunds() {
        for phase in [ClientSwapPhase.payStarted, .paymentInFlight, .lockSeen, .lockVerified] {
            var machine = machine(at: phase)
            _ = machine.handle(.payment(.failed(.noRoute)))
            XCTAssertEqual(machine.phase, .failed, "in \(phase)")
            XCTAssertEqual(machine.state.outcome?.funds, .returned)
        }
    }

    func testRefusalsBeforePayingSayNothingWasPaid() {
        for phase in [ClientSwapPhase.quoted, .accepted] {
            var machine = machine(at: phase)
            XCTAssertEqual(phases(machine.handle(.refused("quote_expired"))), [.failed])
            XCTAssertEqual(machine.state.outcome?.funds, .neverSent)
        }
    }

    func testAnImpossibleClaimEndsWithoutRevealing() {
        var machine = machine(at: .lockVerified)
        let actions = machine.handle(.claimImpossible("6 blocks left"))
        XCTAssertEqual(phases(actions), [.failed])
        XCTAssertFalse(buildsOrBroadcastsClaim(actions))
        XCTAssertEqual(machine.state.outcome?.funds, .heldUntilCancelled)
    }

    /// Every ending says where the funds are once: the reason says what happened, the fate
    /// (appended by the outcome) where the money is. "nothing was paid; nothing was paid"
    /// came from a refusal whose text already carried the fate (issue 14).
    func testEveryEndingSaysWhereTheFundsAreOnce() {
        let shallow = ClientSwapMachine.Settings(requiredConfirmations: 2)
        let refusal = ClientEngineError.rejected(.quoteExpired, reason: "the quote has expired")
        let endings: [(String, ClientSwapMachine, [ClientSwapInput])] = [
            ("refused", machine(at: .quoted), [.refused(refusal.reason)]),
            ("stopped before paying", machine(at: .accepted), [.recover]),
            ("given up before paying", machine(at: .accepted), [.giveUp]),
            ("payment failed", machine(at: .paymentInFlight), [.payment(.failed(.noRoute))]),
            ("payment failed with a lock", machine(at: .lockSeen), [.payment(.failed(.noRoute))]),
            ("payment failed before the claim", machine(at: .lockVerified), [.payment(.failed(.noRoute))]),
            ("no lock in time", machine(at: .paymentInFlight), [.block(height: Self.timeout - 6)]),
            ("lock not verified in time", machine(at: .lockSeen), [.block(height: Self.timeout - 6)]),
            ("wrong lock", machine(at: .lockSeen), [.lockRejected("short")]),
            ("shallow lock", machine(at: .lockSeen, settings: shallow), [.lockVerified(verified), .block(height: Self.timeout - 6)]),
            ("claim impossible", machine(at: .lockVerified), [.claimImpossible("6 blocks left")]),
            ("claim too late", ClientSwapMachine(settings: settings, state: machine(at: .claimBroadcast).state),
             [.recover, .claimTooLate(tipHeight: 194)]),
            ("give-up timer", machine(at: .payStarted), [.giveUp]),
            ("lock refunded after a round", machine(at: .coopRequested),
             [.lockSpentElsewhere(refundTxid, confirmations: ClientSwapMachine.spenderFinalDepth)]),
            ("lock refunded under an unaccepted claim", machine(at: .claimBroadcast),
             [.lockSpentElsewhere(refundTxid, confirmations: ClientSwapMachine.spenderFinalDepth)]),
        ]
        let phrases = ["nothing was paid", "never revealed", "the Lightning payment failed", "funds are back", "refunds"]
        for (name, start, inputs) in endings {
            var machine = start
            for input in inputs { _ = machine.handle(input) }
            guard let outcome = machine.state.outcome else { XCTFail("\(name): no outcome"); continue }
            XCTAssertTrue([.failed, .abandoned].contains(machine.phase), "\(name): \(machine.phase)")
            XCTAssertTrue(outcome.description.hasSuffix("; \(outcome.funds)"), "\(name): \(outcome)")
            for phrase in phrases {
                XCTAssertLessThanOrEqual(outcome.description.components(separatedBy: phrase).count - 1, 1,
                                         "\(name) says \"\(phrase)\" twice: \(outcome)")
            }
        }
    }

    /// A client error ends with where the funds are, once, and its reason leaves it out.
    func testClientErrorsSayTheFateOnce() {
        let ended = ClientSwapOutcome(reason: "the Lightning payment failed: no_route", funds: .returned)
        let errors: [ClientEngineError] = [
            .offers(.quoteExpired), .rejected(.quoteExpired, reason: "the quote has expired"), .provider("no answer"),
            .insufficientBalance(balanceSat: 1_000, neededSat: 21_088), .feeEstimate("none"), .claimNotViable("fee above cap"),
            .paymentHashReused(swapID: "ab"), .swapEnded(swapID: "ab", outcome: ended),
        ]
        for error in errors {
            let fate = try? XCTUnwrap(error.fate, "\(error)")
            XCTAssertEqual(error.description, "\(error.reason); \(fate.map(String.init(describing:)) ?? "")")
            XCTAssertFalse(error.reason.contains(fate?.description ?? "-"), "the reason repeats the fate: \(error)")
            XCTAssertEqual(error.description.components(separatedBy: "nothing was paid").count - 1,
                           fate == .neverSent ? 1 : 0, error.description)
        }
        XCTAssertEqual(ClientEngineError.insufficientBalance(balanceSat: 1_000, neededSat: 21_088).description,
                       "the spending balance of 1,000 sat does not cover 21,088 sat; nothing was paid")
    }

    // MARK: stored form

    func testStateSurvivesItsStoredForm() throws {
        for phase in ClientSwapPhase.allCases {
            let state = machine(at: phase).state
            XCTAssertEqual(try ClientSwapState(kind: phase.rawValue, data: state.json), state, "\(phase)")
        }
        var accepted = machine(at: .claimBroadcast)
        _ = accepted.handle(.claimAccepted(tipHeight: 10))
        XCTAssertEqual(try ClientSwapState(kind: "claim_broadcast", data: accepted.state.json), accepted.state)
        XCTAssertTrue(try ClientSwapState(kind: "claim_broadcast", data: accepted.state.json).claimAccepted)
    }

    /// A record written before `claim_accepted` existed reads as not accepted: the claim
    /// is broadcast again before any push.
    func testAnOldClaimRecordReadsAsNotAccepted() throws {
        var members = machine(at: .claimBroadcast).state.json.objectValue ?? [:]
        members["claim_accepted"] = nil
        let old = try ClientSwapState(kind: "claim_broadcast", data: .object(members))
        XCTAssertFalse(old.claimAccepted)
        XCTAssertEqual(old.claim, claimTx)
    }
}
