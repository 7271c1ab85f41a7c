import Bitcoin
import HTLC
import Offers

/// The client of an `onchain_to_ln` swap as a pure state machine: an input in, the actions
/// to perform out, no I/O and no clock. The engine persists each `persist` action before
/// running the ones after it, and sends `recover` to every unfinished swap at start, which
/// every phase handles (see `SubmarineClientPhase`). Repeated or late inputs (a second
/// accept, a block already seen, a cheaper refund) change nothing.
///
/// Safety rules it encodes:
/// - nothing is locked before the signed accept passes `SubmarineAcceptPolicy` against the
///   client's own terms: the contract rebuilt from its refund key, the provider's claim key,
///   the invoice's hash and the timeout, and the amount the quote's `total_sat`;
/// - the funding is recorded (`lock_intent`) before its first broadcast, and only those
///   bytes are ever broadcast: a crash or a reorg re-sends the same lock, never a second;
///   it must pay the contract exactly `total_sat` in one output, or it is not broadcast;
///   the swap ends without a lock only when a conflicting spend of its inputs is final
///   before the lock was ever seen in a block;
/// - a preimage counts only if SHA-256 of it is the payment hash, wherever it comes from;
///   a spend of the lock is read by what it reveals (`PreimageExtractor`), so a claim of any
///   witness shape, of either contract type, is recognised, and a spend that reveals no
///   preimage is ignored (the refund still runs);
/// - the refund is asked for once the tip reaches the timeout (it is valid in the block
///   after, nLockTime = timeout), never a block earlier, whenever the lock is unspent, and
///   bumped by RBF at each new block until a version confirms; a claim seen in the mempool
///   or a block stops the bumps, and one that leaves both lets the refund run again;
/// - cooperation (issue 17, `Settings.cooperative`): the provider's cooperative claim is
///   co-signed only with the payment hash's preimage in hand and no refund out, recorded
///   (`coop_signed`) before the answer leaves, and its key-path spend is then the claim; a
///   refund round (asked when the provider offers one, only while the invoice is not
///   known paid) is recorded (`coop_refund_requested`) before its request leaves, never
///   resumed after a restart, and at most `maxCoopRefundRounds` per swap; the script-path
///   refund from the timeout stays whatever happens.
public struct SubmarineClientMachine: Sendable {
    public struct Settings: Sendable, Equatable {
        public var terms: SubmarineClientTerms
        /// Depth at which a claim or a refund makes the swap final (6 on mainnet, 1 elsewhere).
        public var finalityConfirmations: Int

        /// Regtest tests only (`SubmarineLockFault`): sat the lock pays below the agreed
        /// total, to prove a provider never pays a short lock. 0 for every real client.
        public var testLockShortfallSat: Int64
        /// Whether this swap takes part in cooperative key-path spends: the SwapRequest
        /// listed `musig2` (sent only to a provider whose offer lists it, for a
        /// `taproot_boltz` contract).
        public var cooperative: Bool
        /// The most cooperative refund rounds one swap starts, each with a fresh nonce.
        public var maxCoopRefundRounds: Int

        public init(terms: SubmarineClientTerms, finalityConfirmations: Int = 1, testLockShortfallSat: Int64 = 0,
                    maxCoopRefundRounds: Int = 3) {
            self.terms = terms
            self.finalityConfirmations = max(1, finalityConfirmations)
            self.testLockShortfallSat = max(0, testLockShortfallSat)
            cooperative = terms.request.cooperates && terms.request.scriptType == .taprootBoltz
            self.maxCoopRefundRounds = max(0, maxCoopRefundRounds)
        }

        /// What the funding must pay the contract: the quote's `total_sat`, exactly (less a
        /// regtest test's shortfall).
        public var lockAmountSat: Int64 { terms.lockAmountSat - testLockShortfallSat }

        /// Confirmations after which the lock is `lock_confirmed`: the quote's, at least 1
        /// (a provider never pays against an unconfirmed lock).
        public var lockConfirmationsRequired: Int { max(1, terms.quote.requiredConfirmations) }
    }

    public let settings: Settings
    public private(set) var state: SubmarineClientState

    public init(settings: Settings, state: SubmarineClientState = SubmarineClientState()) {
        self.settings = settings
        self.state = state
    }

    public var phase: SubmarineClientPhase { state.phase }

    public mutating func handle(_ input: SubmarineClientInput) -> [SubmarineClientAction] {
        switch state.phase {
        case .completed, .refunded, .abandoned: return []
        case .quoted: return quoted(input)
        case .accepted: return accepted(input)
        case .lockIntent, .lockBroadcast, .lockConfirmed, .coopSigned, .paid, .coopRefundRequested, .refundBroadcast:
            return lockOut(input)
        }
    }

    // MARK: before the lock

    private mutating func quoted(_ input: SubmarineClientInput) -> [SubmarineClientAction] {
        switch input {
        case .acceptReceived(let signed, let tipHeight):
            let terms = settings.terms
            do {
                let contract = try SubmarineAcceptPolicy().check(
                    signed, quote: terms.quote, request: terms.request, invoicePaymentHash: terms.invoicePaymentHash,
                    provider: terms.provider, network: terms.network, tipHeight: UInt32(clamping: tipHeight))
                state.contract = contract
                return move(to: .accepted) + [.fundLock(contract, amountSat: settings.lockAmountSat)]
            } catch {
                return end(.abandoned, "the provider's accept was refused before anything was locked: \(error)", .neverLocked)
            }
        case .refused(let reason):
            return end(.abandoned, "the provider refused the swap: \(reason)", .neverLocked)
        case .recover:
            return end(.abandoned, "the node stopped before the accept was verified", .neverLocked)
        default:
            return []
        }
    }

    private mutating func accepted(_ input: SubmarineClientInput) -> [SubmarineClientAction] {
        switch input {
        case .lockFunded(let funding):
            guard let contract = state.contract else { return [] }
            switch fundingOutput(funding, contract: contract) {
            case .success(let lock):
                state.funding = funding
                state.lock = lock
                return move(to: .lockIntent) + [.broadcastLock(funding)]
            case .failure(let problem):
                return end(.abandoned, "the funding transaction \(problem.reason); it was not broadcast", .neverLocked)
            }
        case .fundingFailed(let reason):
            return end(.abandoned, "the lock could not be funded: \(reason)", .neverLocked)
        case .refused(let reason):
            return end(.abandoned, "the provider refused the swap: \(reason)", .neverLocked)
        case .recover:
            // The funding was at most signed: broadcasting needs `lock_intent` on disk first.
            return end(.abandoned, "the node stopped before the lock was funded", .neverLocked)
        default:
            return []
        }
    }

    // MARK: once a lock may exist: only the chain ends the swap

    private mutating func lockOut(_ input: SubmarineClientInput) -> [SubmarineClientAction] {
        switch input {
        case .lockBroadcastAccepted where state.phase == .lockIntent:
            return move(to: .lockBroadcast)
        case .lockConfirmations(let count):
            return lockDepth(max(0, count))
        case .fundingConflicted(let confirmations)
            where confirmations >= settings.finalityConfirmations && fundingMayStillBeLost:
            // The wallet's coins went elsewhere, final: no lock exists nor ever will.
            return end(.abandoned, "another transaction spent the funding's inputs and has \(confirmations) confirmations; "
                       + "no lock exists", .neverLocked)
        case .lockSpent(let transaction, let confirmations):
            return spent(transaction, confirmations: max(0, confirmations))
        case .lockUnspent:
            return unspent()
        case .preimageLearned(let preimage, let source):
            return learned(preimage, source: source)
        case .refundSigned(let refund):
            return refundSigned(refund)
        case .refundConfirmations(let txid, let count) where state.refundTxids.contains(txid):
            return refundDepth(max(0, count), of: txid)
        case .block(let height):
            return block(height)
        case .recover(let tip) where state.phase == .coopRefundRequested:
            // The secret nonce died with the process: the round is over, never resumed.
            return endRefundRound("the node restarted during the round (its nonce is gone)") + resume(tip: tip)
        case .recover(let tip):
            return resume(tip: tip)
        case .coopClaimAgreed(let preimage, let cosigned):
            return coopClaimAgreed(preimage, cosigned)
        case .coopRefundOffered:
            guard let lock = state.lock, mayAskForRefund else { return [] }
            return [.prepareCooperativeRefund(lock)]
        case .coopRefundPrepared(let round) where mayAskForRefund:
            // Recorded before the request leaves: a restart knows a round may have been sent.
            state.coopRefund = round
            state.coopRefundRounds += 1
            state.coopRefundFallback = nil
            return move(to: .coopRefundRequested) + [.requestCooperativeRefund(round)]
        case .coopRefundSigned(let refund) where state.phase == .coopRefundRequested:
            return keyPathRefundSigned(refund)
        case .coopRefundFailed(let reason) where state.phase == .coopRefundRequested:
            return endRefundRound(reason)
        default:
            // A late accept, refusal or funding result: the lock is recorded, and from here
            // only a claim or a refund on chain ends the swap.
            return []
        }
    }

    private mutating func lockDepth(_ count: Int) -> [SubmarineClientAction] {
        let before = state.lockConfirmations
        guard count != before else { return [] }
        state.lockConfirmations = count
        switch state.phase {
        case .lockIntent, .lockBroadcast:
            if count >= settings.lockConfirmationsRequired { return move(to: .lockConfirmed) }
            return move(to: .lockBroadcast) + (count == 0 ? lockRebroadcast() : [])
        case .lockConfirmed:
            // Reorged out of its block: the same funding goes out again, never a new one.
            if count == 0 { return move(to: .lockBroadcast) + lockRebroadcast() }
            return []
        default:
            return count == 0 ? persistHere() + lockRebroadcast() : []
        }
    }

    private mutating func spent(_ transaction: Transaction, confirmations: Int) -> [SubmarineClientAction] {
        guard let contract = state.contract, let lock = state.lock,
              let input = transaction.inputs.first(where: { $0.previousOutput == lock.outPoint }) else { return [] }
        if state.refundTxids.contains(transaction.txid) { return refundDepth(confirmations, of: transaction.txid) }
        if KeyPathSpend.isKeyPath(input.witness, contract: contract) {
            // One signature reveals nothing: only the claim this client co-signed is the
            // provider's claim (its preimage recorded then). Any other key-path spend needs
            // this client's key, which never signed it: it changes nothing.
            guard let coop = state.coopClaim, coop.txid == transaction.txid, let preimage = state.preimage else { return [] }
            return claimed(transaction.txid, preimage: preimage, confirmations: confirmations)
        }
        switch PreimageExtractor.spend(input.witness, contract: contract) {
        case .refund:
            // Only the client's key signs the refund path: a version whose record was lost.
            state.refundTxids.append(transaction.txid)
            if state.refund == nil { state.refund = transaction }
            return refundDepth(confirmations, of: transaction.txid, recordNew: true)
        case .claim(let preimage):
            return claimed(transaction.txid, preimage: preimage, confirmations: confirmations)
        case .unreadableClaim:
            // Impossible for our scripts (each claim path checks the preimage): whatever it
            // is, it proves no payment, so nothing changes and the refund still runs.
            return []
        }
    }

    private mutating func claimed(_ txid: TransactionID, preimage: [UInt8], confirmations: Int) -> [SubmarineClientAction] {
        let first = state.preimage == nil
        if first {
            state.preimage = preimage
            state.preimageSource = .claim
        }
        let changed = state.claimTxid != txid || state.claimConfirmations != confirmations
        state.claimTxid = txid
        state.claimConfirmations = confirmations
        state.refundConfirmations = 0
        state.minedRefundTxid = nil
        let report: [SubmarineClientAction] = first ? [.reportPaid(preimage: preimage)] : []
        if confirmations >= settings.finalityConfirmations {
            let plural = confirmations == 1 ? "" : "s"
            return end(.completed, "the provider's claim \(txid.hex) has \(confirmations) confirmation\(plural)", .delivered,
                       then: report)
        }
        // A claim in the mempool or a block beats a pending refund: no more bumps.
        if state.phase != .paid { return move(to: .paid) + report }
        return (changed ? persistHere() : []) + report
    }

    // MARK: cooperation

    /// The provider's cooperative claim was checked and co-signed: its preimage is the
    /// proof of payment, and the co-signature is recorded before the answer leaves. Once
    /// per swap (a replay finds it recorded), and never once a refund is out.
    private mutating func coopClaimAgreed(_ preimage: [UInt8], _ cosigned: CoopCosigned) -> [SubmarineClientAction] {
        guard settings.cooperative, preimage.count == 32, SHA256.hash(preimage) == settings.terms.invoicePaymentHash,
              state.refund == nil, state.coopClaim == nil else { return [] }
        let first = state.preimage == nil
        if first {
            state.preimage = preimage
            state.preimageSource = .cooperativeClaim
        }
        state.coopClaim = cosigned
        return move(to: .coopSigned) + (first ? [.reportPaid(preimage: preimage)] : [])
    }

    /// Whether a refund round may start now: this swap cooperates, a lock exists, the
    /// invoice is not known paid (no preimage, no co-signed claim), nothing spends the lock,
    /// no refund is out, no round is open, and the rounds are not used up.
    private var mayAskForRefund: Bool {
        guard settings.cooperative, state.lock != nil, state.preimage == nil, state.coopClaim == nil, state.claimTxid == nil,
              state.refund == nil, state.coopRefundRounds < settings.maxCoopRefundRounds else { return false }
        switch state.phase {
        case .lockIntent, .lockBroadcast, .lockConfirmed: return true
        default: return false
        }
    }

    /// The provider co-signed: the key-path refund is recorded as the refund (before its
    /// broadcast) and goes out now, long before the timeout.
    private mutating func keyPathRefundSigned(_ refund: Transaction) -> [SubmarineClientAction] {
        guard let lock = state.lock, refund.inputs.count == 1, refund.inputs[0].previousOutput == lock.outPoint else {
            return endRefundRound("the signed refund does not spend the lock")
        }
        state.refund = refund
        if !state.refundTxids.contains(refund.txid) { state.refundTxids.append(refund.txid) }
        state.refundConfirmations = 0
        return move(to: .refundBroadcast) + [.broadcastRefund(refund)]
    }

    /// A refund round ended without a key-path refund: back to waiting on the lock, the
    /// script-path refund from the timeout as without cooperation.
    private mutating func endRefundRound(_ reason: String) -> [SubmarineClientAction] {
        state.coopRefundFallback = reason
        return move(to: state.lockConfirmations >= settings.lockConfirmationsRequired ? .lockConfirmed : .lockBroadcast)
    }

    private mutating func unspent() -> [SubmarineClientAction] {
        var changed = false
        if state.claimTxid != nil {
            // The claim left the chain and the mempool: the preimage stays as the proof of
            // payment, and the refund waits for the timeout as before.
            state.claimTxid = nil
            state.claimConfirmations = 0
            changed = true
        }
        if state.refundConfirmations != 0 || state.minedRefundTxid != nil {
            state.refundConfirmations = 0
            state.minedRefundTxid = nil
            changed = true
        }
        var actions = changed ? persistHere() : []
        if state.phase == .refundBroadcast, let refund = state.refund { actions.append(.broadcastRefund(refund)) }
        return actions
    }

    private mutating func learned(_ preimage: [UInt8], source: SubmarineClientState.PreimageSource) -> [SubmarineClientAction] {
        guard preimage.count == 32, SHA256.hash(preimage) == settings.terms.invoicePaymentHash else { return [] }
        guard state.preimage == nil else { return [] }
        state.preimage = preimage
        state.preimageSource = source
        // With a refund out (the timeout passed), the proof is recorded but the refund goes
        // on: the provider had until the timeout to claim, and only a claim stops it.
        if state.phase == .refundBroadcast { return persistHere() + [.reportPaid(preimage: preimage)] }
        return move(to: .paid) + [.reportPaid(preimage: preimage)]
    }

    private mutating func refundSigned(_ refund: Transaction) -> [SubmarineClientAction] {
        // Only a refund of this lock that the next block may hold (nLockTime at most the
        // tip, which is at least the timeout) is recorded: a version that could not enter
        // the next block would leave the lock unrefunded while the swap waits on it.
        guard let lock = state.lock, let timeout = state.timeoutHeight, let tip = state.tipHeight, tip >= timeout,
              Int(refund.lockTime) <= tip,
              refund.inputs.contains(where: { $0.previousOutput == lock.outPoint }) else { return [] }
        // A claim is out: no refund fights it.
        if state.claimTxid != nil { return [] }
        // A repeat, or a version paying no more than the last: not recorded.
        if state.refund != nil && !isFeeBump(refund) { return [] }
        state.refund = refund
        if !state.refundTxids.contains(refund.txid) { state.refundTxids.append(refund.txid) }
        state.refundConfirmations = 0
        let record = state.phase == .refundBroadcast ? persistHere() : move(to: .refundBroadcast)
        return record + [.broadcastRefund(refund)]
    }

    /// `txid`: the version the chain holds at that depth.
    private mutating func refundDepth(_ count: Int, of txid: TransactionID,
                                      recordNew: Bool = false) -> [SubmarineClientAction] {
        let before = state.refundConfirmations
        let minedBefore = state.minedRefundTxid
        state.refundConfirmations = count
        // Which version is mined decides what the wallet got back: kept for the books when it
        // is not the latest signed (reorged out: none known again).
        state.minedRefundTxid = count > 0 && txid != state.refund?.txid ? txid : nil
        if count > 0 {
            // The lock's spend in a block is our refund: a claim seen before lost.
            state.claimTxid = nil
            state.claimConfirmations = 0
        }
        if count >= settings.finalityConfirmations {
            let plural = count == 1 ? "" : "s"
            let paid = state.preimage == nil ? "" : "; the invoice was paid (preimage recorded) but the provider's claim was not mined before the timeout"
            return end(.refunded, "the refund has \(count) confirmation\(plural)\(paid)", .refunded)
        }
        if state.phase != .refundBroadcast { return move(to: .refundBroadcast) }
        if count == 0 && before > 0, let refund = state.refund {
            // Reorged out of its block: send it again (the next block bumps it if needed).
            return persistHere() + [.broadcastRefund(refund)]
        }
        return count != before || recordNew || state.minedRefundTxid != minedBefore ? persistHere() : []
    }

    private mutating func block(_ height: Int) -> [SubmarineClientAction] {
        if let tip = state.tipHeight, height <= tip { return [] }
        state.tipHeight = height
        guard let lock = state.lock, let timeout = state.timeoutHeight else { return [] }
        switch state.phase {
        case .refundBroadcast:
            guard state.refundConfirmations == 0, let refund = state.refund else { return [.checkChain] }
            // A key-path refund before the timeout: sent again, since no script-path bump
            // is valid yet (from the timeout on, bumps replace it by the script path).
            if height < timeout { return [.checkChain, .broadcastRefund(refund)] }
            return [.checkChain, .bumpRefund(previous: refund, tipHeight: height)]
        case .paid where state.claimTxid != nil:
            // The claim is out; its depth completes the swap.
            return [.checkChain]
        default:
            break
        }
        let actions = lockRebroadcast() + [.checkChain]
        guard height >= timeout else { return actions }
        // The lock is unspent at the timeout: the refund is valid in the next block.
        if let refund = state.refund {
            // Signed before, then beaten by a claim that has since left the chain.
            return move(to: .refundBroadcast) + [.broadcastRefund(refund)] + actions
        }
        return actions + [.buildRefund(lock)]
    }

    /// `tip`: the chain's tip at the restart, newer than the stored one after a long stop.
    private mutating func resume(tip: Int?) -> [SubmarineClientAction] {
        switch state.phase {
        case .refundBroadcast:
            return (state.refund.map { [.broadcastRefund($0)] } ?? []) + [.checkChain]
        default:
            return lockRebroadcast(atTip: tip) + [.checkChain]
        }
    }

    // MARK: helpers

    /// Whether the funding has never been seen in a block nor spent: only then can a
    /// conflicting transaction mean that no lock exists.
    private var fundingMayStillBeLost: Bool {
        (state.phase == .lockIntent || state.phase == .lockBroadcast) && state.lockConfirmations == 0
            && state.claimTxid == nil && state.refundTxids.isEmpty && state.preimage == nil
    }

    /// The recorded funding, sent again while it is in no block and nothing spends it.
    ///
    /// A funding the node never took (`lock_intent`: a crash before the broadcast, or every
    /// broadcast refused) is taken back instead once the tip (`tip`, else the last block
    /// seen) is past `SubmarineRules.lastLockBroadcastHeight`: the provider gives up a swap
    /// whose lock it has not seen within `lockWaitBlocks` of the accept, so a lock sent
    /// later would never be paid for, and the coins would wait for the refund at the
    /// timeout (SUB-LIQ-2). Once the lock's node took it, it goes out again as before: the
    /// provider may have seen it in time and be waiting on it.
    private func lockRebroadcast(atTip tip: Int? = nil) -> [SubmarineClientAction] {
        guard let funding = state.funding, state.lockConfirmations == 0, state.claimTxid == nil,
              state.refundConfirmations == 0 else { return [] }
        if state.phase == .lockIntent, let timeout = state.timeoutHeight, let tip = tip ?? state.tipHeight,
           tip > SubmarineRules.lastLockBroadcastHeight(timeoutHeight: UInt32(clamping: timeout),
                                                        htlcTimeoutBlocks: settings.terms.quote.htlcTimeoutBlocks) {
            return [.takeBackFunding(funding)]
        }
        return [.broadcastLock(funding)]
    }

    /// Why a funding transaction may not be broadcast.
    struct FundingProblem: Error {
        let reason: String
    }

    /// The one output paying `contract` exactly the quote's `total_sat`: less and the
    /// provider never pays, more is money given away, two would leave one to chance.
    private func fundingOutput(_ funding: Transaction, contract: SwapContract) -> Result<LockOutput, FundingProblem> {
        let script = contract.scriptPubKey
        let paying = funding.outputs.indices.filter { funding.outputs[$0].scriptPubKey == script }
        let amount = settings.lockAmountSat
        guard paying.count == 1, let index = paying.first else {
            return .failure(FundingProblem(reason: "has \(paying.count) outputs paying the contract, not 1"))
        }
        let value = funding.outputs[index].value
        guard value == amount else {
            return .failure(FundingProblem(reason: "pays the contract \(value) sat, not the agreed \(amount) sat"))
        }
        return .success(LockOutput(outPoint: OutPoint(txid: funding.txid, index: UInt32(index)), value: value))
    }

    /// Whether `refund` pays more fee than the refund on record (its output holds less).
    private func isFeeBump(_ refund: Transaction) -> Bool {
        guard let current = state.refund else { return true }
        guard refund.txid != current.txid else { return false }
        let total = { (tx: Transaction) in tx.outputs.reduce(Int64(0)) { $0 + $1.value } }
        return total(refund) < total(current)
    }

    private mutating func move(to phase: SubmarineClientPhase) -> [SubmarineClientAction] {
        state.phase = phase
        return [.persist(state)]
    }

    private func persistHere() -> [SubmarineClientAction] { [.persist(state)] }

    private mutating func end(_ phase: SubmarineClientPhase, _ reason: String, _ funds: SubmarineClientFundsFate,
                              then extra: [SubmarineClientAction] = []) -> [SubmarineClientAction] {
        state.outcome = SubmarineClientOutcome(reason: reason, funds: funds)
        return move(to: phase) + extra + [.finish]
    }
}
