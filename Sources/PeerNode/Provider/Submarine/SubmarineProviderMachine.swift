import Bitcoin
import HTLC
import Lightning
import Offers

/// The provider's `onchain_to_ln` swap logic as a pure function: (state, input) -> (next
/// state, actions). No I/O, no clock: the tip, the time and every chain or Lightning fact
/// arrive as inputs, so each transition is tested as a table
/// (`SubmarineProviderMachineTests`). A separate machine from the reverse one
/// (`ProviderSwapMachine`): here the client locks and the provider pays first.
///
/// Safety rules it keeps:
/// - the invoice is paid only once a lock pays the accepted contract exactly
///   (`SubmarineLock(verifying:)`) with the offer's confirmations, at least 1: Core v31
///   relays full RBF, so a lock at 0 confirmations can be double-spent after the payment;
/// - `payment_intent` is recorded before the payment is sent, and `pay` is emitted only by
///   the step that records it: a restart tracks the payment, never sends it again;
/// - at pay time the invoice must be unexpired and `cltv_limit = timeout − tip − 12` must
///   leave a route (`SubmarineRules`), computed from the tip of that moment;
/// - a lock reorged out or replaced before the payment sends the swap back to waiting
///   (a conflicting replacement is verified anew, a bad one ends `lock_mismatch`); after the
///   payment the lock is relayed again and the claim goes on until it is deep;
/// - only a preimage that hashes to the payment hash counts;
/// - once the preimage is known the provider claims, however late: unlike a reverse
///   client, it reveals nothing by claiming (it has paid already, and the payee knows the
///   preimage), and the claim path has no time lock, so even a claim after the timeout can
///   only win or be refused against the client's refund, never cost more than a try. The
///   CLTV limit makes a preimage that late need a route that broke its own time locks.
///   The claim is bumped by `ClaimPolicy` to the end.
/// - cooperation (issue 17, `context.cooperative`): the first claim is asked for through
///   the key path (`coop_requested` recorded before the request leaves); any ending of the
///   round, a restart included, gives the script-path claim, never a second round. A
///   payment that fails (LND's final FAILED) is followed by an offer of a cooperative
///   refund; the co-signature the engine gives is recorded (`coop_refund_signed`) only from
///   `payment_failed`, a state that never pays.
public struct SubmarineProviderMachine: Sendable {
    /// Confirmations after which a claim (or the client's refund) is taken as final. Six:
    /// a reorg shallower than that is followed (the claim relayed and bumped again).
    public static let claimFinalDepth = 6

    public let context: SubmarineProviderContext

    public init(context: SubmarineProviderContext) {
        self.context = context
    }

    public func step(_ state: SubmarineProviderState, _ input: SubmarineProviderInput) -> SubmarineProviderStep {
        switch state {
        case .accepted: return accepted(input)
        case .lockSeen(let lock): return lockSeen(lock, input)
        case .lockConfirmed(let lock): return lockConfirmed(lock, input)
        case .paymentIntent(let lock, let limit): return paying(lock, limit, started: false, input)
        case .paymentInFlight(let lock, let limit): return paying(lock, limit, started: true, input)
        case .paid(let lock, let preimage): return paid(lock, preimage, input)
        case .coopRequested(let lock, let preimage, _): return coopRequested(lock, preimage, input)
        case .claimBroadcast(let lock, let preimage, let claim): return claiming(lock, preimage, claim, input)
        case .paymentFailed(let lock, let reason), .coopRefundSigned(let lock, let reason, _):
            return paymentFailed(lock, reason, input)
        case .claimed, .abandoned, .lockMismatch, .released, .claimLost:
            // Final: nothing follows, repeated or late events are skipped.
            return .none
        }
    }

    // MARK: before the payment

    private func accepted(_ input: SubmarineProviderInput) -> SubmarineProviderStep {
        switch input {
        case .recover:
            return SubmarineProviderStep(actions: [.watchLock])
        case .lockSeen(let transaction, let confirmations):
            return arrived(transaction, confirmations, firstSeen: true)
        case .block(let height, let now):
            // No lock yet: past the lock's deadline after the accept, or once it could not
            // get all its confirmations before the payment must go, the promise is freed.
            if let deadline = context.lockDeadlineHeight, height > deadline { return abandoned(.noLockInTime) }
            return canStillPay(tipHeight: height, nowUnix: now, blocksToGo: context.requiredConfirmations)
                ? .none : abandoned(.noLockInTime)
        case .lockRefunded(_, let confirmations) where confirmations >= 1:
            return abandoned(.lockRefunded)
        default:
            return .none
        }
    }

    /// A lock seen for the first time (`firstSeen`) or a replacement of the recorded one
    /// (it spends one of its inputs: only the client can make it): checked against the
    /// contract; waited on until deep enough, then the payment is prepared.
    ///
    /// A first payment to the address that does not match ends the swap only once it is in
    /// a block: in the mempool it may be a stranger's (the address is public from the
    /// client's broadcast on), and the client's good lock may be the next one seen.
    private func arrived(_ transaction: Transaction, _ confirmations: Int, firstSeen: Bool = false) -> SubmarineProviderStep {
        let lock: SubmarineLock
        do {
            lock = try SubmarineLock(verifying: transaction, contract: context.contract, totalSat: context.lockTotalSat)
        } catch {
            if firstSeen && confirmations < 1 { return .none }
            return SubmarineProviderStep(next: .lockMismatch(txid: transaction.txid, error))
        }
        guard isDeepEnough(confirmations) else { return SubmarineProviderStep(next: .lockSeen(lock)) }
        return SubmarineProviderStep(next: .lockConfirmed(lock), actions: [.preparePayment])
    }

    private func lockSeen(_ lock: SubmarineLock, _ input: SubmarineProviderInput) -> SubmarineProviderStep {
        switch input {
        case .recover:
            return SubmarineProviderStep(actions: [.watchLock])
        case .lockSeen(let transaction, let confirmations):
            if transaction.txid == lock.txid {
                return isDeepEnough(confirmations)
                    ? SubmarineProviderStep(next: .lockConfirmed(lock), actions: [.preparePayment]) : .none
            }
            // A replacement (RBF) is judged on its own; an unrelated payment to the same
            // address says nothing about this lock.
            return lock.conflicts(with: transaction) ? arrived(transaction, confirmations) : .none
        case .lockMissing:
            return SubmarineProviderStep(next: .accepted)
        case .block(let height, let now):
            // The lock may need as little as one more block: give up only when even that is late.
            return canStillPay(tipHeight: height, nowUnix: now, blocksToGo: 1) ? .none : giveUp(.noLockInTime, lock: lock)
        case .lockRefunded(_, let confirmations) where confirmations >= 1:
            return abandoned(.lockRefunded)
        default:
            return .none
        }
    }

    private func lockConfirmed(_ lock: SubmarineLock, _ input: SubmarineProviderInput) -> SubmarineProviderStep {
        switch input {
        case .recover:
            // The chain view first: a reorg while down shows as `.lockSeen` or `.lockMissing`.
            return SubmarineProviderStep(actions: [.watchLock, .preparePayment])
        case .lockSeen(let transaction, let confirmations):
            if transaction.txid == lock.txid {
                // A reorg left it shallower than the offer asks: wait for it again.
                return isDeepEnough(confirmations) ? .none : SubmarineProviderStep(next: .lockSeen(lock))
            }
            return lock.conflicts(with: transaction) ? arrived(transaction, confirmations) : .none
        case .lockMissing:
            // Reorged out before anything was paid: back to waiting for a lock.
            return SubmarineProviderStep(next: .accepted)
        case .block(let height, let now):
            // A Lightning side not ready at the last try is checked again, while the
            // payment could still go out; past that nothing will be paid (a node that
            // stays unreachable must not keep the swap open for ever).
            if let obstacle = obstacle(tipHeight: height, nowUnix: now) { return giveUp(obstacle, lock: lock) }
            return SubmarineProviderStep(actions: [.preparePayment])
        case .paymentReady(let tip, let now):
            return decidePayment(lock, tipHeight: tip, nowUnix: now)
        case .lockRefunded(_, let confirmations) where confirmations >= 1:
            return abandoned(.lockRefunded)
        default:
            return .none
        }
    }

    /// Pay now, or never: the invoice unexpired and a route under the CLTV limit computed
    /// from this tip. The intent is recorded in the same step that asks for the payment.
    private func decidePayment(_ lock: SubmarineLock, tipHeight: UInt32, nowUnix: UInt64) -> SubmarineProviderStep {
        if let obstacle = obstacle(tipHeight: tipHeight, nowUnix: nowUnix) { return giveUp(obstacle, lock: lock) }
        let cltvLimit = UInt32(clamping: SubmarineRules.cltvLimit(timeoutHeight: context.timeoutHeight, tipHeight: tipHeight))
        return SubmarineProviderStep(next: .paymentIntent(lock, cltvLimit: cltvLimit), actions: [.pay(cltvLimit: cltvLimit)])
    }

    /// What forbids paying at this tip and time: the invoice expired, or no route fits
    /// under `cltv_limit` (then a payee holding the HTLC could outlast the client's refund).
    private func obstacle(tipHeight: UInt32, nowUnix: UInt64) -> SubmarineGiveUp? {
        let invoice = context.invoice
        guard nowUnix < invoice.expiresAtUnix else { return .invoiceExpired(expiresAtUnix: invoice.expiresAtUnix) }
        let limit = SubmarineRules.cltvLimit(timeoutHeight: context.timeoutHeight, tipHeight: tipHeight)
        guard SubmarineRules.fitsUnder(cltvLimit: limit, minFinalCLTVExpiry: invoice.minFinalCLTVExpiry) else {
            return .noRouteUnderCLTVLimit(cltvLimit: limit, minFinalCLTVExpiry: invoice.minFinalCLTVExpiry)
        }
        return nil
    }

    private func abandoned(_ why: SubmarineGiveUp) -> SubmarineProviderStep {
        SubmarineProviderStep(next: .abandoned(why))
    }

    /// Nothing will be paid for a lock the client made. With a cooperating client the swap
    /// waits in `payment_failed` (a state that never pays) and offers the key-path refund,
    /// so the client's coins come back within a block instead of at the timeout; no
    /// payment intent was ever recorded, which lets the engine co-sign without LND's word
    /// (`SubmarineProviderEngine.paymentCannotSucceed`). Without cooperation: `abandoned`.
    private func giveUp(_ why: SubmarineGiveUp, lock: SubmarineLock) -> SubmarineProviderStep {
        guard context.cooperative else { return abandoned(why) }
        return SubmarineProviderStep(next: .paymentFailed(lock, reason: "\(Self.neverPaidPrefix)\(why)"), actions: refundOffer)
    }

    /// How a `payment_failed` reason begins when no payment was ever attempted.
    public static let neverPaidPrefix = "never paid: "

    // MARK: the payment

    private func paying(_ lock: SubmarineLock, _ limit: UInt32, started: Bool,
                        _ input: SubmarineProviderInput) -> SubmarineProviderStep {
        switch input {
        case .recover:
            // The send may or may not have reached the node: follow it, never send again.
            return SubmarineProviderStep(actions: [.watchLock, .trackPayment])
        case .block:
            return SubmarineProviderStep(actions: [.trackPayment])
        case .paymentStarted, .payment(.inFlight, _):
            return started ? .none : SubmarineProviderStep(next: .paymentInFlight(lock, cltvLimit: limit))
        case .payment(.succeeded(let preimage), let tip):
            return succeeded(lock, preimage, tipHeight: tip)
        case .payment(.failed(let reason), _):
            // LND's final FAILED: the client may have its coins back now, cooperatively.
            return SubmarineProviderStep(next: .paymentFailed(lock, reason: reason.description), actions: refundOffer)
        case .paymentNotFound:
            if !started {
                // A crash between the intent and the send, or a send whose answer was lost
                // (a timeout, a dropped connection) tracked before LND registered it. Never
                // sent again (the rule admits no exception); `payment_failed` looks the
                // payment up at each block, so a late success is still claimed for.
                return SubmarineProviderStep(next: .paymentFailed(lock, reason: "the Lightning node does not know the "
                    + "payment: never sent (a restart between recording and sending it) or not registered yet (a send "
                    + "whose answer was lost); looked up at each block until the timeout"))
            }
            return SubmarineProviderStep(actions: [.raiseAlarm(
                "the Lightning node no longer knows the payment for lock \(lock.txid) it had taken: not sent again, "
                    + "tracked at each block")])
        case .lockMissing:
            return SubmarineProviderStep(actions: [.rebroadcastLock(lock)])
        case .lockRefunded(let txid, _):
            return SubmarineProviderStep(actions: [.raiseAlarm(
                "lock \(lock.txid) refunded by \(txid) while its payment is in flight: a preimage now would come too late")])
        default:
            return .none
        }
    }

    /// The payment succeeded: its preimage is recorded and claimed with, if it is the
    /// payment hash's (at any height: see the rules above).
    private func succeeded(_ lock: SubmarineLock, _ preimage: [UInt8], tipHeight: UInt32) -> SubmarineProviderStep {
        guard isValid(preimage) else {
            return SubmarineProviderStep(actions: [.raiseAlarm(
                "the payment for lock \(lock.txid) reported a preimage that does not hash to the payment hash: ignored")])
        }
        return SubmarineProviderStep(next: .paid(lock, preimage: preimage), actions: [firstClaim])
    }

    /// The first claim: a cooperative round when the client takes part, else the script path.
    private var firstClaim: SubmarineProviderAction {
        context.cooperative ? .prepareCooperativeClaim : .prepareClaim(replacing: nil)
    }

    /// After a payment failed: the client hears it may ask for a cooperative refund (the
    /// engine checks first that LND reports the payment FAILED).
    private var refundOffer: [SubmarineProviderAction] { context.cooperative ? [.offerCooperativeRefund] : [] }

    /// After a payment failed (`payment_failed`), and once the client's key-path refund is
    /// co-signed (`coop_refund_signed`): the swap waits for the lock to go back. The offer
    /// stands in both (a client whose round died with its process asks again, with a new
    /// nonce), and a new co-signature replaces the record: the lock is the client's whichever
    /// refund it broadcasts, and DeterministicSign derives a new nonce for every new request.
    private func paymentFailed(_ lock: SubmarineLock, _ reason: String, _ input: SubmarineProviderInput) -> SubmarineProviderStep {
        switch input {
        case .recover:
            return SubmarineProviderStep(actions: [.watchLock] + refundOffer)
        case .coopRefundAgreed(let cosigned):
            // Only from here: these states never pay, and the engine checked the payment is
            // FAILED in LND. From now on a preimage could only come from a payment already
            // over, and the key-path refund may take the lock at any moment.
            return SubmarineProviderStep(next: .coopRefundSigned(lock, reason: reason, cosigned))
        case .block(let height, _) where height < context.timeoutHeight:
            // Again at each block: a client that was not connected hears it now. And the
            // payment is looked up: LND may report a success yet (a send it registered after
            // "not found", a failure report out of order), which is still claimed for.
            return SubmarineProviderStep(actions: refundOffer + [.trackPayment])
        case .payment(.succeeded(let preimage), let tip):
            // A success after a failure report (events out of order): the preimage proves
            // the payment went through, so it is claimed for.
            return succeeded(lock, preimage, tipHeight: tip)
        case .block(let height, _) where height >= context.timeoutHeight:
            // The client's refund is valid from the next block: nothing here is ours.
            return SubmarineProviderStep(next: .released)
        case .lockRefunded(_, let confirmations) where confirmations >= 1:
            return SubmarineProviderStep(next: .released)
        default:
            return .none
        }
    }

    // MARK: the claim

    private func paid(_ lock: SubmarineLock, _ preimage: [UInt8], _ input: SubmarineProviderInput) -> SubmarineProviderStep {
        switch input {
        case .recover:
            // No round was recorded: one may start now (its nonce would be a new one).
            return SubmarineProviderStep(actions: [.watchLock, firstClaim])
        case .block:
            // A claim that failed to build is built again at each block.
            return SubmarineProviderStep(actions: [.prepareClaim(replacing: nil)])
        case .coopClaimPrepared(let round) where context.cooperative:
            // Recorded before the request (and its nonce) leaves: a restart knows a round
            // may have been sent, and that its nonce is gone.
            return SubmarineProviderStep(next: .coopRequested(lock, preimage: preimage, round),
                                         actions: [.requestCooperativeClaim(round)])
        case .coopUnavailable:
            return SubmarineProviderStep(actions: [.prepareClaim(replacing: nil)])
        case .claimPrepared(let claim):
            // Recorded before it is broadcast.
            return SubmarineProviderStep(next: .claimBroadcast(lock, preimage: preimage, claim), actions: [.broadcastClaim(claim)])
        case .lockMissing:
            // Reorged out after the payment: the client's signed lock is relayed again.
            return SubmarineProviderStep(actions: [.rebroadcastLock(lock)])
        case .lockRefunded(let txid, let confirmations) where confirmations >= Self.claimFinalDepth:
            return claimLost(lock, txid)
        default:
            return .none
        }
    }

    /// A round is recorded. Its answer is the signed key-path claim (`claimPrepared`, then
    /// recorded and broadcast as any claim) or its failure; either way the claim goes out,
    /// and a restart (the nonce gone) goes to the script path. The engine runs the round
    /// within this swap's inputs, so nothing else is handled while it is open.
    private func coopRequested(_ lock: SubmarineLock, _ preimage: [UInt8],
                               _ input: SubmarineProviderInput) -> SubmarineProviderStep {
        switch input {
        case .recover:
            return SubmarineProviderStep(actions: [.watchLock, .prepareClaim(replacing: nil)])
        case .coopFailed, .block:
            // The script path (again at a block, if building it failed).
            return SubmarineProviderStep(actions: [.prepareClaim(replacing: nil)])
        case .coopClaimPrepared:
            // One round per swap: never a second.
            return .none
        default:
            return paid(lock, preimage, input)
        }
    }

    private func claiming(_ lock: SubmarineLock, _ preimage: [UInt8], _ claim: SubmarineClaim,
                          _ input: SubmarineProviderInput) -> SubmarineProviderStep {
        switch input {
        case .recover:
            // The recorded bytes again (a node that has them already says so).
            return SubmarineProviderStep(actions: [.watchLock, .broadcastClaim(claim)])
        case .claimPublished(let tip):
            guard claim.acceptedAtHeight == nil else { return .none }
            return SubmarineProviderStep(next: .claimBroadcast(lock, preimage: preimage, claim.accepted(at: tip)))
        case .block:
            return SubmarineProviderStep(actions: [.checkClaim(claim)])
        case .claimStatus(.confirmed(let depth, let txid), _):
            // The version the chain holds at that depth is the one that paid the wallet: a
            // reorg before then only changes which version's depth arrives here.
            guard depth >= Self.claimFinalDepth else { return .none }
            return SubmarineProviderStep(next: .claimed(minedClaimTxid: txid == claim.txid ? nil : txid))
        case .claimStatus(.unconfirmed, let tip):
            return bumpDue(claim, tipHeight: tip) ? SubmarineProviderStep(actions: [.prepareClaim(replacing: claim)]) : .none
        case .claimStatus(.missing, let tip):
            // Evicted, refused, or its lock reorged out: the lock goes back first, then the
            // claim, replaced at a higher rate when a bump is due.
            let claimAction: SubmarineProviderAction = bumpDue(claim, tipHeight: tip)
                ? .prepareClaim(replacing: claim) : .broadcastClaim(claim)
            return SubmarineProviderStep(actions: [.rebroadcastLock(lock), claimAction])
        case .claimPrepared(let replacement) where replacement.txid != claim.txid:
            // A bump, recorded before broadcast.
            return SubmarineProviderStep(next: .claimBroadcast(lock, preimage: preimage, replacement),
                                         actions: [.broadcastClaim(replacement)])
        case .lockMissing:
            return SubmarineProviderStep(actions: [.rebroadcastLock(lock)])
        case .lockRefunded(let txid, let confirmations) where confirmations >= Self.claimFinalDepth:
            return claimLost(lock, txid)
        default:
            return .none
        }
    }

    private func claimLost(_ lock: SubmarineLock, _ txid: TransactionID) -> SubmarineProviderStep {
        SubmarineProviderStep(next: .claimLost(lock, spendingTxid: txid), actions: [.raiseAlarm(
            "lock \(lock.txid) was refunded by \(txid) after the invoice was paid: the claim lost; this swap loses the "
                + "invoice amount and its routing fee")])
    }

    // MARK: rules

    /// At least the offer's confirmations, never fewer than 1.
    private func isDeepEnough(_ confirmations: Int) -> Bool {
        confirmations >= context.requiredConfirmations
    }

    /// Whether a lock `blocksToGo` blocks from confirming could still be paid for: the
    /// CLTV limit at that height leaves a route, and the invoice outlives those blocks at
    /// 10 minutes each. Only for giving up; the payment itself checks again.
    private func canStillPay(tipHeight: UInt32, nowUnix: UInt64, blocksToGo: Int) -> Bool {
        SubmarineRules.canStillPay(context.invoice, timeoutHeight: context.timeoutHeight, tipHeight: tipHeight,
                                   nowUnix: nowUnix, blocksToGo: blocksToGo)
    }

    private func bumpDue(_ claim: SubmarineClaim, tipHeight: UInt32) -> Bool {
        context.claimPolicy.bumpDue(
            unconfirmedBlocks: claim.acceptedAtHeight.map { Int(tipHeight) - Int($0) },
            blocksLeft: TimelockPolicy.blocksLeft(timeoutHeight: context.timeoutHeight, tipHeight: tipHeight))
    }

    private func isValid(_ preimage: [UInt8]) -> Bool {
        preimage.count == 32 && SHA256.hash(preimage) == context.paymentHash
    }
}
