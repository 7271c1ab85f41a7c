import Bitcoin
import HTLC
import Lightning

/// The client swap as a pure state machine: an input in, the actions to perform out, no
/// I/O. The engine persists each `persist` action before running the ones after it, and
/// sends `recover` to every unfinished swap at start, which every phase handles (see
/// `ClientSwapPhase`). Repeated or late inputs (a second push of the same lock, a block
/// after the end) change nothing.
///
/// Safety rules it encodes:
/// - a claim is only ever built from a lock that `LockVerifier` accepted, and only once
///   it has the confirmations the policy asks for;
/// - a rejected lock ends the swap without a claim and without revealing the preimage;
/// - the preimage is pushed to the provider only after the client's own node accepted
///   the claim (`claimAccepted`); the engine claims only a lock that node holds; the one
///   exception is a cooperative round (`coop_requested`), which the engine starts only
///   under `CoopRevealRule`, and after which the claim goes out whatever happens;
/// - the give-up timer (wall clock) ends a swap only while it waits for a lock: a
///   verified lock is waited for in blocks, until it has its confirmations or the claim
///   rule (timeout − tip > 6) closes, which ends the swap unrevealed; after the claim, the
///   preimage is public and the only way forward is to get the claim confirmed.
public struct ClientSwapMachine: Sendable {
    public struct Settings: Sendable, Hashable {
        /// Lock confirmations required before claiming (0: zero-conf allowed for this swap).
        public var requiredConfirmations: Int
        /// Claim confirmations after which the swap is `completed`.
        public var completionConfirmations: Int
        /// Seconds after starting the payment at which a swap still waiting for a lock is abandoned.
        public var giveUpSeconds: UInt64
        /// Whether the first claim is asked for cooperatively (a MuSig2 key-path claim): both
        /// this node and the provider's offer have `musig2`, and the contract has a key path.
        public var cooperativeClaim: Bool

        public init(requiredConfirmations: Int, completionConfirmations: Int = 1, giveUpSeconds: UInt64 = 600,
                    cooperativeClaim: Bool = false) {
            self.requiredConfirmations = max(0, requiredConfirmations)
            self.completionConfirmations = max(1, completionConfirmations)
            self.giveUpSeconds = giveUpSeconds
            self.cooperativeClaim = cooperativeClaim
        }
    }

    /// Confirmations after which a transaction spending the lock that is none of our
    /// claims ends the swap: the depth the provider waits for its own claim or refund.
    public static let spenderFinalDepth = 6

    public let settings: Settings
    public private(set) var state: ClientSwapState

    public init(settings: Settings, state: ClientSwapState = ClientSwapState(phase: .quoted)) {
        self.settings = settings
        self.state = state
    }

    public var phase: ClientSwapPhase { state.phase }

    public mutating func handle(_ input: ClientSwapInput) -> [ClientSwapAction] {
        guard !state.phase.isFinal else { return [] }
        switch state.phase {
        case .quoted, .accepted: return beforePayment(input)
        case .payStarted, .paymentInFlight: return waitingForLock(input)
        case .lockSeen: return lockSeen(input)
        case .lockVerified: return lockVerified(input)
        case .coopRequested: return coopRequested(input)
        case .claimBroadcast, .claimConfirmed: return claimOut(input)
        case .completed, .failed, .abandoned: return []
        }
    }

    // MARK: phases

    private mutating func beforePayment(_ input: ClientSwapInput) -> [ClientSwapAction] {
        switch input {
        case .acceptVerified(let timeoutHeight) where state.phase == .quoted:
            state.timeoutHeight = timeoutHeight
            return move(to: .accepted)
        case .paymentStarting(let now) where state.phase == .accepted:
            state.paidAtUnix = now
            return move(to: .payStarted) + [.pay(resuming: false), .armGiveUpTimer(deadlineUnix: giveUpDeadline(now))]
        case .refused(let reason):
            return end(.failed, reason, .neverSent)
        case .recover:
            return end(.failed, "the node stopped before the invoice was paid", .neverSent)
        case .giveUp:
            return end(.failed, "given up before paying", .neverSent)
        default:
            return []
        }
    }

    private mutating func waitingForLock(_ input: ClientSwapInput) -> [ClientSwapAction] {
        switch input {
        case .payment(.inFlight) where state.phase == .payStarted:
            return move(to: .paymentInFlight)
        case .payment(.failed(let reason)):
            return end(.failed, "the Lightning payment failed: \(reason)", .returned)
        case .lockSeen(let sighting):
            state.lock = sighting
            return move(to: .lockSeen) + [.verifyLock(sighting)]
        case .giveUp:
            return giveUp()
        case .block(let height) where !claimRuleHolds(atTip: height) && state.timeoutHeight != nil:
            // No lock yet and none could be claimed any more.
            return end(.abandoned, "no lock was seen while more than \(TimelockPolicy.firstClaimCutoff) blocks were left "
                       + "before the timeout at \(state.timeoutHeight ?? 0); no claim is possible now", .heldUntilCancelled)
        case .recover:
            return [.pay(resuming: true), .armGiveUpTimer(deadlineUnix: giveUpDeadline(state.paidAtUnix)), .lookForLock]
        default:
            return []
        }
    }

    private mutating func lockSeen(_ input: ClientSwapInput) -> [ClientSwapAction] {
        switch input {
        case .lockVerified(let lock):
            state.verifiedLock = lock
            return move(to: .lockVerified) + claimIfDeep()
        case .lockRejected(let reason):
            return end(.failed, "the provider's lock is wrong (\(reason)); no claim was made", .heldUntilCancelled)
        case .lockSeen(let sighting) where sighting.txid == state.lock?.txid:
            state.lock = sighting
            return []
        case .lockSeen(let sighting):
            // Another lock transaction (the provider replaced its own): check that one.
            state.lock = sighting
            return persistHere() + [.verifyLock(sighting)]
        case .payment(.failed(let reason)):
            return end(.failed, "the Lightning payment failed: \(reason)", .returned)
        case .giveUp:
            // A lock in view is waited for in blocks, not minutes: its check ends the wait
            // (verified or rejected), or the claim cutoff below does. Giving up on a lock
            // seen just before the deadline would cost the provider a lock and a refund.
            return []
        case .block(let height) where !claimRuleHolds(atTip: height) && state.timeoutHeight != nil:
            return end(.abandoned, "the lock was not verified while more than \(TimelockPolicy.firstClaimCutoff) blocks were "
                       + "left before the timeout at \(state.timeoutHeight ?? 0); no claim is possible now", .heldUntilCancelled)
        case .recover:
            var actions: [ClientSwapAction] = [.armGiveUpTimer(deadlineUnix: giveUpDeadline(state.paidAtUnix))]
            if let lock = state.lock { actions.append(.verifyLock(lock)) } else { actions.append(.lookForLock) }
            return actions
        default:
            return []
        }
    }

    private mutating func lockVerified(_ input: ClientSwapInput) -> [ClientSwapAction] {
        switch input {
        case .lockSeen(let sighting) where sighting.txid == state.lock?.txid:
            let before = state.lock?.confirmations ?? 0
            state.lock = sighting
            if before < settings.requiredConfirmations && sighting.confirmations >= settings.requiredConfirmations {
                return persistHere() + claimIfDeep()
            }
            return []
        case .lockSeen(let sighting):
            // A different lock transaction: only a verified one is ever claimed.
            state.lock = sighting
            state.verifiedLock = nil
            return move(to: .lockSeen) + [.verifyLock(sighting)]
        case .block(let height) where !claimRuleHolds(atTip: height) && state.timeoutHeight != nil:
            // The claim rule closed before the lock had its confirmations (or before the
            // node held it): never claim now; the provider refunds and cancels.
            let have = state.lock?.confirmations ?? 0
            return end(.failed, "the lock had \(have) of \(settings.requiredConfirmations) confirmation"
                       + "\(settings.requiredConfirmations == 1 ? "" : "s") when no more than \(TimelockPolicy.firstClaimCutoff) blocks "
                       + "were left before the timeout at \(state.timeoutHeight ?? 0) (height \(height)); no claim was made", .heldUntilCancelled)
        case .block:
            // A claim the engine deferred (the node did not hold the lock yet) is tried again.
            return [.checkChain] + claimIfDeep()
        case .claimSigned(let claim):
            return firstClaimSigned(claim)
        case .coopPrepared(let request) where state.verifiedLock != nil:
            // Recorded before the request (and the preimage in it) leaves: a restart knows
            // a round may have been sent, and that its nonce is gone.
            state.coopRequest = request
            state.coopFallback = nil
            return move(to: .coopRequested) + [.requestCooperativeClaim(request)]
        case .coopUnavailable:
            // Nothing was revealed: the first claim as without cooperation.
            guard let lock = state.verifiedLock else { return [] }
            return [.buildClaim(lock)]
        case .claimImpossible(let reason):
            return end(.failed, "no claim could be made (\(reason))", .heldUntilCancelled)
        case .payment(.failed(let reason)):
            return end(.failed, "the Lightning payment failed before the claim: \(reason)", .returned)
        case .recover:
            // No wall-clock deadline for a verified lock: it is waited for in blocks, while
            // the claim rule holds (see `.block`).
            return [.checkChain] + claimIfDeep()
        default:
            return []
        }
    }

    /// A cooperative round is recorded: the provider may have the preimage. The key-path
    /// claim comes back as `claimSigned`, or the round fails and the script-path claim goes
    /// out, at any height: unlike `lock_verified`, the claim rule never ends this swap
    /// unclaimed, since the provider may be able to settle.
    private mutating func coopRequested(_ input: ClientSwapInput) -> [ClientSwapAction] {
        guard let lock = state.verifiedLock else { return [] }
        switch input {
        case .claimSigned(let claim):
            return firstClaimSigned(claim)
        case .coopFailed(let reason) where state.coopFallback == nil:
            state.coopFallback = reason
            return persistHere() + [.buildFallbackClaim(lock)]
        case .block:
            // While the round is open its answer is on the way (the engine always gives one);
            // after it, a fallback the engine deferred is tried again.
            return [.checkChain] + (state.coopFallback == nil ? [] : [.buildFallbackClaim(lock)])
        case .lockSeen(let sighting) where sighting.txid == state.lock?.txid:
            state.lock = sighting
            return []
        case .lockSpentElsewhere(let txid, let confirmations):
            return lockSpentElsewhere(txid, confirmations: confirmations)
        case .claimImpossible(let reason):
            return end(.failed, "no claim could be made after the cooperative round (\(reason))", .heldUntilCancelled)
        case .payment(.failed(let reason)):
            // The HTLC went back: the provider cannot settle with what it was told.
            return end(.failed, "the Lightning payment failed before the claim: \(reason)", .returned)
        case .recover:
            // The secret nonce died with the process: this round is over, never resumed.
            if state.coopFallback == nil {
                state.coopFallback = "the node restarted during the cooperative round (its nonce is gone)"
                return persistHere() + [.checkChain, .buildFallbackClaim(lock)]
            }
            return [.checkChain, .buildFallbackClaim(lock)]
        default:
            // The give-up timer cannot end this swap: the preimage may be out.
            return []
        }
    }

    /// The first claim of the swap (key path or script path) is signed: record and broadcast.
    private mutating func firstClaimSigned(_ claim: Transaction) -> [ClientSwapAction] {
        state.claim = claim
        state.claimConfirmations = 0
        state.claimAccepted = false
        state.claimVersionAcceptedHeight = nil
        if !state.claimTxids.contains(claim.txid) { state.claimTxids.append(claim.txid) }
        // No push yet: the preimage goes to the provider only once the client's own node
        // has accepted the claim (`claimAccepted`). A claim the node refuses (a lock it
        // does not hold) must not hand the provider the preimage for nothing.
        return move(to: .claimBroadcast) + [.broadcastClaim(claim)]
    }

    private mutating func claimOut(_ input: ClientSwapInput) -> [ClientSwapAction] {
        switch input {
        case .block(let height):
            guard state.phase == .claimBroadcast else { return [.checkChain] }
            guard let claim = state.claim else { return [] }
            // Until the node accepts the first broadcast, each block tries it again, within
            // the claim rule only. After a cooperative round the provider may hold the
            // preimage: a claim the node refuses (its rate under the mempool's minimum in a
            // fee spike) is then maintained as an accepted one is, bumped at the node's
            // estimate, rather than sent again as it is until the provider refunds (review
            // of 2026-12-07).
            if state.claimAccepted || state.coopRequest != nil { return [.maintainClaim(tipHeight: height)] }
            return [resumeClaim(claim)]
        case .claimSigned(let claim) where state.phase == .claimBroadcast:
            // A fee bump: recorded before it replaces the last claim. Only a claim paying
            // more fee than the last one is a bump; a second signing of the same claim (two
            // builds raced) is not recorded.
            guard isFeeBump(claim) else { return [] }
            state.claim = claim
            // A new version: its unconfirmed blocks count from its own acceptance.
            state.claimVersionAcceptedHeight = nil
            // Kept with the earlier versions: whichever is mined is ours.
            state.claimTxids.append(claim.txid)
            return persistHere() + [.broadcastClaim(claim)]
        case .claimAccepted(let tipHeight) where state.phase == .claimBroadcast:
            // The client's node holds the claim: the lock exists and the preimage is
            // public in its mempool. Only now may the provider have it to settle, and only
            // while the claim rule holds: past it the provider may be refunding, and a push
            // would let it settle and refund both. The claim's confirmation pushes then.
            let push: [ClientSwapAction] = claimRuleHolds(atTip: tipHeight) ? [.pushPreimage] : []
            let firstForVersion = state.claimVersionAcceptedHeight == nil && tipHeight != nil
            guard !state.claimAccepted || firstForVersion else { return push }
            state.claimAccepted = true
            if firstForVersion { state.claimVersionAcceptedHeight = tipHeight }
            return persistHere() + push
        case .claimTooLate(let tipHeight) where state.phase == .claimBroadcast && !state.claimAccepted:
            return end(.failed, "the signed claim was never accepted by this node and at height \(tipHeight) no more than "
                       + "\(TimelockPolicy.firstClaimCutoff) blocks are left before the timeout at "
                       + "\(state.timeoutHeight.map(String.init) ?? "?"); it was not broadcast, so the provider "
                       + "refunds its lock", .heldUntilCancelled)
        case .claimConfirmations(let count):
            return claimDepth(count)
        case .lockSpentElsewhere(let txid, let confirmations):
            return lockSpentElsewhere(txid, confirmations: confirmations)
        case .claimVersionConfirmations(let txid, let count) where state.claimVersions.contains(txid):
            // Which version is mined decides what the destination got: kept for the books
            // when it is not the last one signed (reorged out: none known again).
            state.minedClaimTxid = count > 0 && txid != state.claim?.txid ? txid : nil
            return claimDepth(count)
        case .recover:
            guard let claim = state.claim else { return [.checkChain] }
            // In `claim_broadcast` the push follows the node's acceptance of the rebroadcast
            // (within the claim rule). A claim it accepted before is public: rebroadcast it
            // at any height. One it never accepted goes out only within the claim rule.
            guard state.phase == .claimBroadcast else { return [.pushPreimage, .checkChain] }
            return [state.claimAccepted ? .broadcastClaim(claim) : resumeClaim(claim), .checkChain]
        default:
            // The give-up timer, payment updates and lock news cannot change anything now:
            // the preimage is out and the claim is the way to the money.
            return []
        }
    }

    /// The lock went to a transaction that is none of our claim versions: after the
    /// timeout, only the provider's refund can spend it. Below `spenderFinalDepth` a reorg
    /// could still bring the lock back, so the claim keeps going out; at it, no claim can
    /// ever confirm and the swap ends, with what the provider may have learned: a recorded
    /// round (which may have left) or a claim this node accepted put the preimage in reach.
    private mutating func lockSpentElsewhere(_ txid: TransactionID, confirmations: Int) -> [ClientSwapAction] {
        guard confirmations >= Self.spenderFinalDepth, !state.claimVersions.contains(txid) else { return [] }
        let revealed = state.coopRequest != nil || state.claimAccepted
        let reason = "the lock was spent by \(txid.hex), none of this swap's claims, at least \(confirmations) blocks deep: "
            + "the provider refunded it after the timeout at \(state.timeoutHeight.map(String.init) ?? "?")"
        return end(.failed, reason, revealed ? .refundedAfterReveal : .heldUntilCancelled)
    }

    private mutating func claimDepth(_ count: Int) -> [ClientSwapAction] {
        let before = state.claimConfirmations
        state.claimConfirmations = max(0, count)
        if count <= 0 {
            guard state.phase == .claimConfirmed, let claim = state.claim else { return [] }
            // Reorged out of its block: back to broadcasting it.
            return move(to: .claimBroadcast) + [.broadcastClaim(claim)]
        }
        var actions: [ClientSwapAction] = []
        if state.phase == .claimBroadcast {
            actions += move(to: .claimConfirmed) + [.pushPreimage]
        }
        if count >= settings.completionConfirmations {
            state.outcome = ClientSwapOutcome(reason: "the claim has \(count) confirmation\(count == 1 ? "" : "s")",
                                              funds: .delivered)
            actions += move(to: .completed) + [.finish]
        } else if actions.isEmpty && count != before {
            actions += persistHere()
        }
        return actions
    }

    // MARK: helpers

    /// Whether a first claim may still be revealed at `tip`: timeout − tip > 6 (the rule
    /// `TimelockPolicy.checkFirstClaim` applies). Unknown tip or timeout: no.
    private func claimRuleHolds(atTip tip: Int?) -> Bool {
        guard let tip, let timeout = state.timeoutHeight else { return false }
        return timeout - tip > TimelockPolicy.firstClaimCutoff
    }

    /// Broadcast a claim the node has not accepted, only below timeout − 6 (at any height
    /// after a cooperative round). Without a known timeout (never after an accept), never.
    private func resumeClaim(_ claim: Transaction) -> ClientSwapAction {
        // After a cooperative round the provider may hold the preimage already: holding the
        // claim back past the cutoff would let it settle and refund both.
        if state.coopRequest != nil { return .broadcastClaim(claim) }
        return .resumeClaim(claim, revealBefore: state.timeoutHeight.map { $0 - TimelockPolicy.firstClaimCutoff } ?? 0)
    }

    /// Whether `claim` pays more fee than the claim on record (its outputs hold less).
    private func isFeeBump(_ claim: Transaction) -> Bool {
        guard let current = state.claim else { return true }
        guard claim.txid != current.txid else { return false }
        let total = { (tx: Transaction) in tx.outputs.reduce(Int64(0)) { $0 + $1.value } }
        return total(claim) < total(current)
    }

    private func claimIfDeep() -> [ClientSwapAction] {
        guard let lock = state.verifiedLock, (state.lock?.confirmations ?? 0) >= settings.requiredConfirmations else {
            return []
        }
        return [settings.cooperativeClaim ? .prepareCooperativeClaim(lock) : .buildClaim(lock)]
    }

    private mutating func giveUp() -> [ClientSwapAction] {
        let minutes = settings.giveUpSeconds / 60
        let span = minutes > 0 ? "\(minutes) minute\(minutes == 1 ? "" : "s")" : "\(settings.giveUpSeconds) s"
        return end(.abandoned, "no claim could be broadcast within \(span) of paying", .heldUntilCancelled)
    }

    private func giveUpDeadline(_ paidAt: UInt64?) -> UInt64 {
        (paidAt ?? 0) + settings.giveUpSeconds
    }

    /// The swap ended saying its payment is held (or may be the provider's), and the
    /// Lightning node reports it failed back already: the fate written is `returned`.
    /// Nothing else changes.
    public mutating func paymentReturnedAtEnd() {
        guard state.phase.isFinal, let outcome = state.outcome, outcome.funds.awaitsPayment else { return }
        state.outcome = ClientSwapOutcome(reason: outcome.reason, funds: .returned)
    }

    private mutating func move(to phase: ClientSwapPhase) -> [ClientSwapAction] {
        state.phase = phase
        return [.persist(state)]
    }

    private func persistHere() -> [ClientSwapAction] { [.persist(state)] }

    private mutating func end(_ phase: ClientSwapPhase, _ reason: String, _ funds: ClientFundsFate) -> [ClientSwapAction] {
        state.outcome = ClientSwapOutcome(reason: reason, funds: funds)
        return move(to: phase) + [.finish]
    }
}
