import Bitcoin
import HTLC

/// What the machine needs to know about a swap besides its state: fixed when the swap is
/// accepted.
public struct ProviderSwapContext: Sendable, Hashable {
    public let paymentHash: [UInt8]
    public let timeoutHeight: UInt32
    /// The swap's confirmations and timeout blocks (DESIGN 6's inequalities).
    public let policy: TimelockPolicy

    public init(paymentHash: [UInt8], timeoutHeight: UInt32, policy: TimelockPolicy) {
        self.paymentHash = paymentHash
        self.timeoutHeight = timeoutHeight
        self.policy = policy
    }
}

/// One decision: the state to store (nil: unchanged), then the actions to run, in order.
/// The engine stores `next` durably before it runs any action, so every act is preceded
/// on disk by the state that announced it.
public struct ProviderSwapStep: Sendable, Hashable {
    public var next: ProviderSwapState?
    public var actions: [ProviderSwapAction]

    public init(next: ProviderSwapState? = nil, actions: [ProviderSwapAction] = []) {
        self.next = next
        self.actions = actions
    }

    static let none = ProviderSwapStep()
}

/// The provider's swap logic as a pure function: (state, input) -> (next state, actions).
/// No I/O, no clock: the tip and every chain or Lightning fact arrive as inputs, so each
/// transition is tested as a table (`ProviderSwapMachineTests`).
///
/// Safety rules it keeps:
/// - funds are locked only from `invoice_accepted`, after DESIGN 6's lock checks pass
///   with the HTLC's real expiry and today's tip;
/// - the lock is recorded (`funding_intent`) before it is published, and only the
///   recorded bytes are ever published;
/// - a preimage is recorded (`claim_observed`) before settling; a pushed preimage counts
///   only once a lock exists (settling earlier would take the payment with nothing locked)
///   and only while no refund of ours is out (audit H-2: if the refund confirmed after the
///   settle, the provider would keep both the coins and the payment);
/// - a claim seen while our refund is out stops the refund (no more bumps) and is settled
///   for once it confirms (`claim_pending`): until then either may win;
/// - the invoice is cancelled after the lock is spent back to us, `refundCancelDepth` blocks
///   deep (audit M-2: a reorg of a shallower refund lets the client claim instead), or when
///   nothing was locked: never while the client could still claim and be unpaid for;
/// - any spend of the lock that is not our refund is a claim; one that reveals no preimage
///   raises an alarm and, once confirmed, ends the swap `lock_lost` (audit C-2).
public struct ProviderSwapMachine: Sendable {
    /// Confirmations of the refund before the invoice is given up. Six fits well before the
    /// HTLC's expiry: the lock check wants it 42 blocks past the timeout, and LND cancels
    /// 12 blocks before it.
    public static let refundCancelDepth = 6

    public let context: ProviderSwapContext

    public init(context: ProviderSwapContext) {
        self.context = context
    }

    public func step(_ state: ProviderSwapState, _ input: ProviderSwapInput) -> ProviderSwapStep {
        switch state {
        case .invoiceCreated: return invoiceCreated(input)
        case .invoiceAccepted(let expiry): return invoiceAccepted(htlcExpiry: expiry, input)
        case .fundingIntent(let lock): return fundingIntent(lock, input)
        case .lockBroadcast(let lock): return locked(lock, confirmed: false, input)
        case .lockConfirmed(let lock): return locked(lock, confirmed: true, input)
        case .claimObserved(let lock, let preimage): return claimObserved(lock, preimage, input)
        case .coopSigned(let lock, let preimage, _): return coopSigned(lock, preimage, input)
        case .refundIntent(let lock, let refund): return refunding(lock, refund, broadcast: false, input)
        case .refundBroadcast(let lock, let refund): return refunding(lock, refund, broadcast: true, input)
        case .claimPending(let lock, let refund, let preimage): return claimPending(lock, refund, preimage, input)
        case .settled, .refunded, .cancelled, .lockLost, .refundedAfterHTLCCancel:
            // Final: nothing follows, repeated events are skipped.
            return .none
        }
    }

    // MARK: before the lock

    private func invoiceCreated(_ input: ProviderSwapInput) -> ProviderSwapStep {
        switch input {
        case .recover:
            return ProviderSwapStep(actions: [.watchInvoice, .lookupInvoice])
        case .invoice(let seen):
            switch seen.state {
            case .open:
                return canStillLock(tipHeight: seen.tipHeight) ? .none : ProviderSwapStep(actions: [.cancelInvoice])
            case .accepted:
                let expiry = seen.heldExpiry ?? 0
                return ProviderSwapStep(next: .invoiceAccepted(htlcExpiry: expiry),
                                        actions: [.pushStatus(.invoiceAccepted), decide(htlcExpiry: expiry, tipHeight: seen.tipHeight)])
            case .canceled:
                return cancelled
            case .settled:
                // Only our own settle (with a preimage we do not have yet) can do this.
                return .none
            }
        case .block(let height):
            // Past this point no payment could be locked for safely: stop waiting for one.
            return canStillLock(tipHeight: height) ? .none : ProviderSwapStep(actions: [.cancelInvoice])
        case .invoiceCancelled:
            return cancelled
        default:
            return .none
        }
    }

    private func invoiceAccepted(htlcExpiry: UInt32, _ input: ProviderSwapInput) -> ProviderSwapStep {
        switch input {
        case .recover:
            return ProviderSwapStep(actions: [.watchInvoice, .lookupInvoice])
        case .invoice(let seen):
            switch seen.state {
            case .accepted:
                return ProviderSwapStep(actions: [decide(htlcExpiry: seen.heldExpiry ?? 0, tipHeight: seen.tipHeight)])
            case .canceled:
                return cancelled
            case .open, .settled:
                return .none
            }
        case .block:
            // A transient failure (unreachable wallet backend) left the swap here: look
            // again, and the checks run with the new tip.
            return ProviderSwapStep(actions: [.lookupInvoice])
        case .fundingPrepared(let built):
            // The lock is recorded with the HTLC's expiry: the refund's deadline (audit H-4).
            let lock = built.with(htlcExpiry: htlcExpiry)
            return ProviderSwapStep(next: .fundingIntent(lock), actions: [.publishLock(lock)])
        case .fundingFailed(let retryable):
            return retryable ? .none : ProviderSwapStep(actions: [.cancelInvoice])
        case .invoiceCancelled:
            return cancelled
        default:
            return .none
        }
    }

    /// DESIGN 6: lock only if the HTLC outlives the timeout by 42 blocks and enough blocks
    /// remain for the client; otherwise give the payment back.
    private func decide(htlcExpiry: UInt32, tipHeight: UInt32) -> ProviderSwapAction {
        do {
            try context.policy.checkProviderLock(htlcExpiryHeight: htlcExpiry, timeoutHeight: context.timeoutHeight,
                                                 tipHeight: tipHeight)
            return .prepareFunding
        } catch {
            return .cancelInvoice
        }
    }

    private func canStillLock(tipHeight: UInt32) -> Bool {
        let left = TimelockPolicy.blocksLeft(timeoutHeight: context.timeoutHeight, tipHeight: tipHeight)
        return left >= context.policy.requiredConfirmations + TimelockPolicy.providerLockMargin
    }

    private var cancelled: ProviderSwapStep {
        ProviderSwapStep(next: .cancelled, actions: [.pushStatus(.cancelled)])
    }

    // MARK: the lock

    private func fundingIntent(_ lock: ProviderLock, _ input: ProviderSwapInput) -> ProviderSwapStep {
        switch input {
        case .recover:
            // Where is the recorded lock? `.lockSeen` or `.lockMissing` follows.
            return ProviderSwapStep(actions: [.watchLock(lock)])
        case .lockMissing, .block:
            // Never published once the client's payment went back: taken back instead.
            if lock.htlcCancelledHeight != nil { return ProviderSwapStep(actions: [.withdrawLock(lock)]) }
            return ProviderSwapStep(actions: [.publishLock(lock)])
        case .lockPublished:
            return ProviderSwapStep(next: .lockBroadcast(lock),
                                    actions: [.pushStatus(.lockBroadcast), .watchLock(lock)])
        case .lockSeen(let confirmations):
            if isConfirmed(confirmations) {
                // One update (it carries the lock transaction too): the status sequence
                // counts stored status changes, and `lock_broadcast` was never stored.
                return ProviderSwapStep(next: .lockConfirmed(lock), actions: [.pushStatus(.lockConfirmed), .watchLock(lock)])
            }
            return ProviderSwapStep(next: .lockBroadcast(lock), actions: [.pushStatus(.lockBroadcast), .watchLock(lock)])
        case .lockPublishFailed(let permanent):
            // Its inputs are gone and it is nowhere on chain: it can never confirm, so
            // nothing is at stake and the payment goes back.
            return permanent ? ProviderSwapStep(actions: [.cancelInvoice]) : .none
        case .lockGone:
            return gone(lock)
        case .invoiceCancelled:
            return cancelled
        case .invoice(let seen) where seen.state == .canceled:
            return htlcCancelled(.fundingIntent(lock), lock, tip: seen.tipHeight)
        case .claimSeen(let preimage, let confirmations, let txid):
            return claimSeen(lock, preimage, confirmations, txid)
        case .unreadableSpend(let txid, let confirmations):
            return lost(lock, txid, confirmations)
        default:
            return .none
        }
    }

    private func locked(_ lock: ProviderLock, confirmed: Bool, _ input: ProviderSwapInput) -> ProviderSwapStep {
        switch input {
        case .recover:
            return ProviderSwapStep(actions: [.watchLock(lock)])
        case .lockSeen(let confirmations):
            guard !confirmed, isConfirmed(confirmations) else { return .none }
            return ProviderSwapStep(next: .lockConfirmed(lock), actions: [.pushStatus(.lockConfirmed)])
        case .lockMissing:
            return ProviderSwapStep(actions: [.rebroadcastLock(lock)])
        case .lockGone:
            return gone(lock)
        case .block(let height):
            if refundIsValid(tipHeight: height) { return ProviderSwapStep(actions: [.prepareRefund(replacing: nil)]) }
            if confirmed { return .none }
            // Unconfirmed, and no claim seen (that would have moved the swap on): once the
            // client may no longer claim safely, the lock is taken back rather than left to
            // confirm for a client that then claims it unpaid (audit H-4).
            return ProviderSwapStep(actions: [mustWithdraw(lock, tipHeight: height) ? .withdrawLock(lock) : .rebroadcastLock(lock)])
        case .claimSeen(let preimage, let confirmations, let txid):
            // No refund of ours is out: the claim is the only way the lock can go.
            return claimSeen(lock, preimage, confirmations, txid)
        case .unreadableSpend(let txid, let confirmations):
            return lost(lock, txid, confirmations)
        case .preimagePushed(let preimage, let tip):
            // Nothing to settle once the HTLC is cancelled: the refund is the way back.
            return isValid(preimage) && lock.htlcCancelledHeight == nil && !mayBeWithdrawn(lock, confirmed: confirmed, tipHeight: tip)
                ? claimed(lock, preimage) : .none
        case .coopClaimAgreed(let preimage, let claim, let tip):
            // The rule of a push: never co-sign what it could not settle for.
            return isValid(preimage) && lock.htlcCancelledHeight == nil && !mayBeWithdrawn(lock, confirmed: confirmed, tipHeight: tip)
                ? coopAgreed(lock, preimage, claim) : .none
        case .invoice(let seen) where seen.state == .canceled:
            return htlcCancelled(confirmed ? .lockConfirmed(lock) : .lockBroadcast(lock), lock, tip: seen.tipHeight)
        case .refundPrepared(let refund):
            return ProviderSwapStep(next: .refundIntent(lock, refund), actions: [.broadcastRefund(refund)])
        default:
            return .none
        }
    }

    private func claimed(_ lock: ProviderLock, _ preimage: [UInt8]) -> ProviderSwapStep {
        ProviderSwapStep(next: .claimObserved(lock, preimage: preimage), actions: [.settleInvoice(preimage: preimage)])
    }

    /// A claim of the lock: settled for, unless the HTLC is already cancelled. Then there
    /// is nothing to settle: the claim took the lock unpaid, which the operator must see,
    /// and once it is in a block the swap ends `lock_lost`.
    private func claimSeen(_ lock: ProviderLock, _ preimage: [UInt8], _ confirmations: Int,
                           _ txid: TransactionID) -> ProviderSwapStep {
        guard lock.htlcCancelledHeight != nil else { return claimed(lock, preimage) }
        let alarm = ProviderSwapAction.raiseAlarm(
            "lock \(lock.txid) claimed by \(txid) after the client's HTLC was cancelled: nothing to settle, the lock is lost")
        guard confirmations >= 1 else { return ProviderSwapStep(actions: [alarm]) }
        return ProviderSwapStep(next: .lockLost(lock, spendingTxid: txid), actions: [alarm])
    }

    /// The Lightning node cancelled the client's HTLC while our lock is open (audit H-4,
    /// M-7): the client's payment went back, yet it can still claim the lock until our
    /// refund confirms. Recorded in the lock (so a restart knows) with an alarm; the swap
    /// goes on to its refund at the timeout and ends `refunded_after_htlc_cancel`.
    private func htlcCancelled(_ state: ProviderSwapState, _ lock: ProviderLock, tip: UInt32) -> ProviderSwapStep {
        guard lock.htlcCancelledHeight == nil, let next = state.replacing(lock: lock.withHTLCCancelled(at: tip)) else {
            return .none
        }
        return ProviderSwapStep(next: next, actions: [.raiseAlarm(
            "the client's HTLC was cancelled (seen at height \(tip)) while lock \(lock.txid) is open: the payment went back; "
                + "the lock is refunded from height \(context.timeoutHeight + 1), and a claim before the refund takes it unpaid")])
    }

    /// The refund is deep and the invoice given up: `refunded`, or, when the HTLC had
    /// been cancelled while the lock was open, the final state that says so.
    private func refundedStep(_ lock: ProviderLock) -> ProviderSwapStep {
        guard let height = lock.htlcCancelledHeight else {
            return ProviderSwapStep(next: .refunded, actions: [.pushStatus(.refunded)])
        }
        return ProviderSwapStep(next: .refundedAfterHTLCCancel(lock), actions: [
            .raiseAlarm("lock \(lock.txid) refunded; the client's HTLC had been cancelled while it was open (seen at height \(height))"),
            .pushStatus(.refunded),
        ])
    }

    /// Records the preimage and the co-signature in one event, then settles; the engine
    /// sends the partial signature only once the swap is `settled`.
    private func coopAgreed(_ lock: ProviderLock, _ preimage: [UInt8], _ claim: CoopCosigned) -> ProviderSwapStep {
        ProviderSwapStep(next: .coopSigned(lock, preimage: preimage, claim: claim), actions: [.settleInvoice(preimage: preimage)])
    }

    /// Co-signed and settling: `claim_observed`'s rules. Spends of the lock change nothing
    /// (the co-signed key-path claim, or the client's script-path fallback: either is the
    /// claim the preimage pays for); a second cooperative request is never recorded (the
    /// engine refuses it: one co-signature per swap).
    private func coopSigned(_ lock: ProviderLock, _ preimage: [UInt8], _ input: ProviderSwapInput) -> ProviderSwapStep {
        if case .coopClaimAgreed = input { return .none }
        return claimObserved(lock, preimage, input)
    }

    private func claimObserved(_ lock: ProviderLock, _ preimage: [UInt8], _ input: ProviderSwapInput) -> ProviderSwapStep {
        switch input {
        case .coopClaimAgreed(let pushed, let claim, _) where pushed == preimage && lock.htlcCancelledHeight == nil:
            // The preimage came first (a push or a claim seen): it may still co-sign, the
            // same preimage paying for either claim.
            return coopAgreed(lock, preimage, claim)
        case .recover, .block:
            // Settling is idempotent; a block retries one that failed.
            return ProviderSwapStep(actions: [.settleInvoice(preimage: preimage)])
        case .invoiceSettled:
            return ProviderSwapStep(next: .settled, actions: [.pushStatus(.settled)])
        case .invoice(let seen) where seen.state == .settled:
            return ProviderSwapStep(next: .settled, actions: [.pushStatus(.settled)])
        case .invoice(let seen) where seen.state == .canceled:
            // The HTLC was cancelled before the settle (LND's expiry rule, the operator) and
            // a settle can never succeed now: retrying it for ever would leave the lock to
            // the client, who knows the preimage. Back to the lock, marked cancelled: its
            // rules withdraw it while unconfirmed and refund it from the timeout (review of
            // 2026-12-07). A claim seen from there ends the swap `lock_lost`.
            let marked = lock.withHTLCCancelled(at: seen.tipHeight)
            return ProviderSwapStep(next: .lockBroadcast(marked), actions: [
                .raiseAlarm("the client's HTLC was cancelled (seen at height \(seen.tipHeight)) before its settle: lock "
                    + "\(lock.txid) is refunded from height \(context.timeoutHeight + 1), and a claim before that takes it unpaid"),
                .watchLock(marked),
            ])
        default:
            return .none
        }
    }

    // MARK: the refund

    private func refunding(_ lock: ProviderLock, _ refund: ProviderRefund, broadcast: Bool,
                           _ input: ProviderSwapInput) -> ProviderSwapStep {
        switch input {
        case .recover:
            // Watch the lock (a claim may still come: the claim path has no timelock).
            return ProviderSwapStep(actions: [.watchLock(lock), broadcast ? .checkRefund(refund, atBlock: false)
                                                                          : .broadcastRefund(refund)])
        case .refundPublished:
            return broadcast ? .none : ProviderSwapStep(next: .refundBroadcast(lock, refund))
        case .block:
            // Where does the refund stand? A version not in a block by now is replaced.
            return ProviderSwapStep(actions: [.checkRefund(refund, atBlock: true)])
        case .refundStatus(let status, let atBlock, let seen):
            switch status {
            case .confirmed(let count) where count >= 1:
                // The coins are back. The record names the version the chain took, whose
                // fee the wallet paid; the invoice is given up only once it is deep.
                let taken = seen ?? refund
                let record = !broadcast || taken.txid != refund.txid
                let actions: [ProviderSwapAction] = count >= Self.refundCancelDepth ? [.cancelInvoice] : []
                return ProviderSwapStep(next: record ? .refundBroadcast(lock, taken) : nil, actions: actions)
            case .confirmed, .unconfirmed:
                if !broadcast { return ProviderSwapStep(next: .refundBroadcast(lock, refund)) }
                return atBlock ? ProviderSwapStep(actions: [.prepareRefund(replacing: refund)]) : .none
            case .missing:
                // At a block, a refund the chain does not hold (refused under a risen
                // mempool minimum, or evicted) is replaced at a higher rate (audit H-4);
                // otherwise (a restart) it is simply sent again.
                return ProviderSwapStep(actions: [atBlock ? .prepareRefund(replacing: refund) : .broadcastRefund(refund)])
            }
        case .refundPrepared(let replacement):
            // Recorded before it is broadcast, like the first one.
            return ProviderSwapStep(next: .refundIntent(lock, replacement), actions: [.broadcastRefund(replacement)])
        case .invoiceCancelled:
            return refundedStep(lock)
        case .invoice(let seen) where seen.state == .canceled:
            let state: ProviderSwapState = broadcast ? .refundBroadcast(lock, refund) : .refundIntent(lock, refund)
            return htlcCancelled(state, lock, tip: seen.tipHeight)
        case .claimSeen(let preimage, let confirmations, let txid):
            // The client's claim beat the refund: we are paid through the invoice instead,
            // but only once it is in a block; until then our refund may still win.
            if confirmations >= 1 { return claimSeen(lock, preimage, confirmations, txid) }
            return ProviderSwapStep(next: .claimPending(lock, refund, preimage: preimage))
        case .unreadableSpend(let txid, let confirmations):
            return lost(lock, txid, confirmations)
        case .preimagePushed:
            // Never settle on a push once a refund may be out (audit H-2): the claim, if
            // there is one, shows itself on chain.
            return .none
        case .lockMissing:
            // The refund cannot go in while the lock it spends is nowhere. Past the timeout the
            // client may no longer claim safely, so rather than send the lock again (to confirm
            // for nobody but a thief), its inputs go back to the wallet (audit H-4).
            return ProviderSwapStep(actions: [.withdrawLock(lock)])
        case .lockGone:
            return gone(lock)
        default:
            return .none
        }
    }

    /// Our refund and the client's claim compete for the lock; the claim was seen first.
    /// The refund is no longer bumped (that would only fight the claim we want to win).
    private func claimPending(_ lock: ProviderLock, _ refund: ProviderRefund, _ preimage: [UInt8],
                              _ input: ProviderSwapInput) -> ProviderSwapStep {
        switch input {
        case .recover:
            // The rescan reports the claim again (with its depth); the refund is checked too.
            return ProviderSwapStep(actions: [.watchLock(lock), .checkRefund(refund, atBlock: false)])
        case .block(let height):
            // At the refund's deadline D the claim is still unconfirmed: waiting longer
            // would let LND cancel the HTLC (at E − 12) and the claim confirm after it,
            // the lock gone unpaid (review of 2026-12-07). The preimage is public in the
            // claim's witness: settle, as for a claim seen before any refund.
            if let expiry = lock.htlcExpiry, height >= RefundEscalation.deadline(htlcExpiry: expiry),
               lock.htlcCancelledHeight == nil {
                return claimed(lock, preimage)
            }
            return ProviderSwapStep(actions: [.checkRefund(refund, atBlock: false)])
        case .claimSeen(_, let confirmations, let txid) where confirmations >= 1:
            return claimSeen(lock, preimage, confirmations, txid)
        case .refundStatus(.confirmed(let count), _, _) where count >= Self.refundCancelDepth:
            return ProviderSwapStep(actions: [.cancelInvoice])
        case .refundStatus(.missing, _, _):
            // The lock is unspent again: the claim left the mempool (evicted, or the client
            // stopped rebroadcasting it). Waiting would let the HTLC expire and the client
            // claim later for free, so the refund goes back out at a higher rate.
            return ProviderSwapStep(next: .refundBroadcast(lock, refund), actions: [.prepareRefund(replacing: refund)])
        case .invoiceCancelled:
            return refundedStep(lock)
        case .invoice(let seen) where seen.state == .canceled:
            return htlcCancelled(.claimPending(lock, refund, preimage: preimage), lock, tip: seen.tipHeight)
        case .unreadableSpend(let txid, let confirmations):
            return lost(lock, txid, confirmations)
        default:
            return .none
        }
    }

    /// The lock can never confirm (its inputs are spent elsewhere, deep): nothing is locked,
    /// nothing can be claimed, so the payment goes back (audit M-7). Stored final before
    /// the cancel runs: a crash in between leaves the HTLC to LND's expiry, which returns
    /// the payment too.
    private func gone(_ lock: ProviderLock) -> ProviderSwapStep {
        ProviderSwapStep(next: .cancelled, actions: [
            .raiseAlarm("lock \(lock.txid) can never confirm: an input is spent elsewhere; the payment goes back"),
            .cancelInvoice, .pushStatus(.cancelled),
        ])
    }

    /// The lock was spent by someone else without revealing a preimage (audit C-2): only a
    /// flawed contract (the retired `p2wsh`) or a broken hash allows it. The operator must
    /// see it; once the spend is in a block the swap ends `lock_lost`.
    private func lost(_ lock: ProviderLock, _ txid: TransactionID, _ confirmations: Int) -> ProviderSwapStep {
        let alarm = ProviderSwapAction.raiseAlarm(
            "lock \(lock.txid) spent by \(txid), which is not our refund and reveals no preimage: the lock is lost")
        guard confirmations >= 1 else { return ProviderSwapStep(actions: [alarm]) }
        return ProviderSwapStep(next: .lockLost(lock, spendingTxid: txid), actions: [alarm])
    }

    // MARK: rules

    /// Whether an unconfirmed lock should be taken back: the client may claim it only while
    /// timeout − tip > 6 (its first-claim rule), and not at all once its HTLC is cancelled.
    /// Whether an unconfirmed lock is (or may be) being taken back at this tip, so that a
    /// claim the client built on it dies with it: settling for it then would keep both the
    /// payment and the coins. The client's own node can be a block behind, or not yet have
    /// seen the withdrawal, and push in good faith. An unknown tip counts as past the cutoff.
    private func mayBeWithdrawn(_ lock: ProviderLock, confirmed: Bool, tipHeight: UInt32?) -> Bool {
        guard !confirmed else { return false }
        guard let tipHeight else { return true }
        return mustWithdraw(lock, tipHeight: tipHeight)
    }

    private func mustWithdraw(_ lock: ProviderLock, tipHeight: UInt32) -> Bool {
        guard lock.htlcCancelledHeight == nil else { return true }
        return TimelockPolicy.blocksLeft(timeoutHeight: context.timeoutHeight, tipHeight: tipHeight)
            <= TimelockPolicy.firstClaimCutoff
    }

    /// At least one confirmation, and as many as the swap asks for.
    private func isConfirmed(_ confirmations: Int) -> Bool {
        confirmations >= max(1, context.policy.requiredConfirmations)
    }

    /// The refund has nLockTime = timeout: it can enter the block after a tip at the timeout.
    private func refundIsValid(tipHeight: UInt32) -> Bool { tipHeight >= context.timeoutHeight }

    private func isValid(_ preimage: [UInt8]) -> Bool {
        preimage.count == 32 && SHA256.hash(preimage) == context.paymentHash
    }
}
