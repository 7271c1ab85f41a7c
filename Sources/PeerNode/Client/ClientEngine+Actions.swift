import Bitcoin
import HTLC
import Lightning
import Offers
import Transport

extension ClientEngine {
    /// Performs one action of the machine. A step (`persist`) is recorded in memory here;
    /// `process` writes it (and a failed write stops the swap before anything follows).
    func perform(_ action: ClientSwapAction, for run: ClientSwapRun) async {
        switch action {
        case .persist(let state): await persist(state, of: run)
        case .pay(let resuming): startPayment(run, resuming: resuming)
        case .armGiveUpTimer(let deadline): armGiveUpTimer(run, deadlineUnix: deadline)
        case .lookForLock: await lookForLock(run)
        case .verifyLock(let sighting): await verifyLock(sighting, of: run)
        case .buildClaim(let lock): await buildClaim(run, lock: lock)
        case .prepareCooperativeClaim(let lock): await prepareCooperativeClaim(run, lock: lock)
        case .requestCooperativeClaim(let request): await requestCooperativeClaim(run, request)
        case .buildFallbackClaim(let lock): await buildClaim(run, lock: lock, revealed: true)
        case .broadcastClaim(let claim): await broadcastClaim(claim, of: run)
        case .resumeClaim(let claim, let revealBefore): await resumeClaim(claim, revealBefore: revealBefore, of: run)
        case .maintainClaim(let height): await maintainClaim(run, tipHeight: height)
        case .pushPreimage: await pushPreimage(run)
        case .checkChain: await checkChain(run)
        case .finish: await finish(run)
        }
    }

    // MARK: persist

    private func persist(_ state: ClientSwapState, of run: ClientSwapRun) async {
        var state = state
        if state.phase.isFinal, state.outcome?.funds.awaitsPayment == true,
           await paymentHasFailed(paymentHash: run.secrets.paymentHash) {
            // The end's fate is written once (a final record takes nothing after it): when
            // the payment already failed back (the provider cancelled while this node was
            // down, and the lock's check won the race with the payment's tracking), the
            // record says so rather than "held".
            run.machine.paymentReturnedAtEnd()
            state = run.state
        }
        if state.phase.isFinal, let outcome = state.outcome, outcome.funds == .refundedAfterReveal {
            // Only a provider that settled and refunded both, or this node down from a round
            // to past the timeout, ends a swap here: what no action of this node can mend.
            log("ALARM client swap \(run.id): \(outcome)")
        }
        var data = state.json
        if state.phase == .accepted, case .object(var members) = data, let accept = run.accept {
            // The accept is the provider's signed promise; kept as received.
            members["accept"] = accept.json
            if let tip = run.acceptedTip { members["accepted_tip"] = .integer(tip) }
            data = .object(members)
        }
        // Written by `process`, before the next action that needs it on disk at the latest.
        run.unwrittenSteps.append(NewSwapEvent(kind: state.phase.rawValue, data: data, isFinal: state.phase.isFinal,
                                               at: Int64(clock.nowUnix)))
        let detail = describe(state, of: run)
        let step = state.phase.rawValue + "\u{0}" + detail
        guard step != run.lastReportedStep else { return }
        run.lastReportedStep = step
        report(run.id, .phase(state.phase), detail)
    }

    private func describe(_ state: ClientSwapState, of run: ClientSwapRun) -> String {
        switch state.phase {
        case .quoted: return "quoted"
        case .accepted: return "the provider's accept is verified; invoice \(OffersError.sats(run.accept?.body.totalSat ?? 0))"
        case .payStarted: return "paying the invoice"
        case .paymentInFlight: return "the payment is held by the provider; waiting for its lock"
        case .lockSeen: return "lock \(state.lock?.txid.hex ?? "?") seen (\(state.lock?.source.rawValue ?? "?"))"
        case .lockVerified:
            return "lock verified, \(state.lock?.confirmations ?? 0) of \(run.terms.requiredConfirmations) confirmations"
        case .coopRequested:
            if let fallback = state.coopFallback { return "cooperative round over (\(fallback)); claiming through the script path" }
            return "cooperative round recorded: asking \(run.terms.provider.name) to co-sign key-path claim "
                + (state.coopRequest?.txid.hex ?? "?")
        case .claimBroadcast:
            return "claim \(state.claim?.txid.hex ?? "?") to \(run.terms.destination.encoded(for: run.terms.network))"
                + (state.claimIsKeyPath ? " (key path, co-signed)" : "")
        case .claimConfirmed: return "claim confirmed (\(state.claimConfirmations))"
        case .completed, .failed, .abandoned: return state.outcome?.description ?? state.phase.rawValue
        }
    }

    // MARK: paying

    private func startPayment(_ run: ClientSwapRun, resuming: Bool) {
        if resuming, let paidAt = run.state.paidAtUnix, clock.nowUnix >= paidAt + configuration.giveUpSeconds {
            // Audit L-8: the node was down past the give-up deadline. A payment sent now
            // would be given up at once (its timer has expired): never send it again. One
            // that left before the stop is found by its lock, else given up.
            note(run.id, "the give-up deadline passed while the node was down; the payment is not sent again")
            return
        }
        guard let accept = run.accept?.body, let invoice = try? InvoiceDecoder.decode(accept.invoice) else {
            feed(run.id, .payment(.failed(.other("the stored invoice does not decode"))))
            return
        }
        let feeLimit = UInt64(clamping: configuration.routingFee.fee(paymentSat: accept.totalSat))
        let cltvLimit = UInt32(clamping: invoice.minFinalCLTVExpiryDelta) &+ configuration.routeCLTVAllowance
        let id = run.id
        let hash = run.secrets.paymentHash
        let request = accept.invoice
        let timeout = configuration.paymentTimeoutSeconds
        let lightning = self.lightning
        run.payment?.cancel()
        run.payment = Task { [weak self] in
            // After a restart the node may hold this payment already (sent before the
            // stop): track it, and send only when the node never had it. LND would refuse
            // a second send (409), but tracking is what tells the outcome.
            if resuming, await self?.track(id, paymentHash: hash) != .unknownToNode { return }
            // Sent again only while each send provably never reached the node.
            while !Task.isCancelled {
                let stream = lightning.payInvoice(paymentRequest: request, feeLimitSat: feeLimit, cltvLimit: cltvLimit,
                                                  timeoutSeconds: timeout)
                do {
                    var saidLock = false
                    for try await update in stream {
                        if !saidLock, let height = update.lockedUntilHeight {
                            // The route's total time lock: the worst case if the provider
                            // holds the payment and neither settles nor cancels it.
                            saidLock = true
                            await self?.note(id, "payment in flight; at worst it stays held until height \(height), "
                                             + "when the Lightning node takes it back")
                        }
                        await self?.recordRoutingFee(id, update)
                        await self?.feed(id, .payment(update.status))
                    }
                    return
                } catch let error as LightningBackendError {
                    switch error {
                    case .lnd where error.isAlreadyExists,
                         .paymentStatusUnknown, .unreachable, .connectionRefused:
                        // The node has the payment (409), or the stream broke after it took
                        // it, or no answer came: the payment may be held by the provider.
                        // Its outcome comes from tracking, never from this error.
                        await self?.note(id, "\(error)")
                        guard await self?.track(id, paymentHash: hash) == .unknownToNode else { return }
                        if ClientResendRule.maySendAgain(after: error) {
                            await self?.note(id, "the Lightning node is back and never had the payment (the send was "
                                             + "refused before it left); sending it again")
                            continue
                        }
                        await self?.note(id, "the Lightning node never received the payment; waiting for the give-up timer")
                    case .lnd:
                        // An error before the stream began: a refusal (an expired invoice, a
                        // bad request) once the node confirms it has no record of the payment.
                        // One it had taken before it stopped, unable to say so but by the
                        // call's error (LND-5), is followed like any other.
                        guard await self?.track(id, paymentHash: hash) == .unknownToNode else { return }
                        await self?.feed(id, .payment(.failed(.other(error.description))))
                    default:
                        await self?.note(id, "payment status unknown (\(error)); tracking it")
                        _ = await self?.track(id, paymentHash: hash)
                    }
                } catch {
                    await self?.note(id, "payment stream ended: \(error)")
                }
                return
            }
        }
    }

    /// True when LND reports the payment for `paymentHash` failed (its first tracking
    /// update, waited for at most `fateLookupMilliseconds`); false when it is in flight,
    /// unknown, or LND does not answer in time.
    private func paymentHasFailed(paymentHash: [UInt8]) async -> Bool {
        let lightning = self.lightning
        let sleeper = self.sleeper
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                do {
                    for try await update in lightning.trackPayment(paymentHash: paymentHash) {
                        if case .failed = update.status { return true }
                        return false
                    }
                } catch {}
                return false
            }
            group.addTask {
                try? await sleeper.sleep(milliseconds: Self.fateLookupMilliseconds)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// How long the end of a swap waits for LND to say where a held payment is.
    static let fateLookupMilliseconds: UInt64 = 2_000

    /// How tracking a payment ended.
    enum PaymentTracking: Equatable {
        /// A final status was fed to the machine.
        case final(PaymentUpdate.Status)
        /// The Lightning node has no payment for the hash: nothing left it.
        case unknownToNode
        /// The swap's task was cancelled (the swap ended).
        case cancelled
    }

    /// Follows the payment for `paymentHash` (LND `TrackPaymentV2`), feeding each status
    /// to the machine, until it is final. A broken stream or an unreachable node is
    /// tracked again after a pause, for as long as the swap runs: while the payment may be
    /// held, only its outcome, the lock or the give-up timer may end the swap.
    func track(_ id: String, paymentHash: [UInt8]) async -> PaymentTracking {
        var said = false
        while !Task.isCancelled {
            do {
                for try await update in lightning.trackPayment(paymentHash: paymentHash) {
                    await recordRoutingFee(id, update)
                    feed(id, .payment(update.status))
                    if update.status.isFinal { return .final(update.status) }
                }
            } catch let error as LightningBackendError where error.isNotFound {
                return .unknownToNode
            } catch {
                if !said { note(id, "tracking the payment: \(error); trying again") }
                said = true
            }
            do { try await sleeper.sleep(milliseconds: Self.trackRetryMilliseconds) } catch { break }
        }
        return .cancelled
    }

    /// The pause before tracking a payment again after its stream broke.
    static let trackRetryMilliseconds: UInt64 = 1_000

    func note(_ id: String, _ text: String) { report(id, .note, text) }

    private func armGiveUpTimer(_ run: ClientSwapRun, deadlineUnix: UInt64) {
        let now = clock.nowUnix
        // The deadline is on the engine's clock, which may run faster than real time (a
        // regtest daemon following the hub's simulated clock): the clock says how long
        // the remaining seconds take for real. A deadline already past (a resume after a
        // long stop) leaves the provider's status and the chain one request's time to show
        // a lock before the swap is given up.
        let wait = deadlineUnix > now ? clock.realMilliseconds(forSeconds: deadlineUnix - now)
                                      : configuration.requestTimeoutMilliseconds
        let id = run.id
        let sleeper = self.sleeper
        run.giveUpTimer?.cancel()
        run.giveUpTimer = Task { [weak self] in
            do { try await sleeper.sleep(milliseconds: wait) } catch { return }
            await self?.feed(id, .giveUp)
        }
    }

    // MARK: the lock

    func lookForLock(_ run: ClientSwapRun) async {
        guard let providerSwapID = run.providerSwapID else { return }
        await watch(run)
        let request = SwapStatusRequest(requestID: RandomID.make(), swapID: providerSwapID)
        do {
            let reply = try await link(for: run.terms.provider).request(
                request.encoded, id: request.requestID, timeoutMilliseconds: configuration.requestTimeoutMilliseconds)
            if case .swapStatusSnapshot(let snapshot) = reply, let lock = snapshot.lock {
                await fetchLock(run, reference: lock)
                return
            }
        } catch {
            note(run.id, "provider status unavailable (\(error)); looking for the lock on chain")
        }
        // The lock may have confirmed while the node was down: look back from the accept.
        if let from = run.acceptedTip { await follower.rescan(fromHeight: from) }
    }

    /// Reads a lock the provider named from the chain and feeds it.
    func fetchLock(_ run: ClientSwapRun, reference: LockReference) async {
        guard let txid = try? TransactionID(hex: reference.txid),
              let found = try? await chain.transaction(txid) else { return }
        feed(run.id, .lockSeen(ClientLockSighting(transaction: found.transaction, outputIndex: Int(reference.vout),
                                                  confirmations: found.confirmations, source: .chain)))
    }

    private func verifyLock(_ sighting: ClientLockSighting, of run: ClientSwapRun) async {
        guard let contract = run.contract, let accept = run.accept?.body else { return }
        do {
            let lock = try LockVerifier.findLock(in: sighting.transaction, contract: contract,
                                                 expectedAmount: accept.amountSat, outputIndex: sighting.outputIndex)
            await watchLockSpend(lock)
            feed(run.id, .lockVerified(lock))
        } catch {
            feed(run.id, .lockRejected("\(error)"))
        }
    }

    // MARK: the claim

    func claimRequest(_ run: ClientSwapRun, lock: LockOutput, rate: FeeRate, tipHeight: Int) -> ClaimRequest? {
        guard let contract = run.contract else { return nil }
        return ClaimRequest(contract: contract, lock: lock, destination: run.terms.destination, amount: run.terms.amountSat,
                            purpose: run.terms.purpose, feeRate: rate,
                            blocksLeft: TimelockPolicy.blocksLeft(timeoutHeight: contract.terms.timeoutHeight,
                                                                  tipHeight: UInt32(clamping: tipHeight)))
    }

    /// The script-path claim: the first one, or the fallback after a cooperative round
    /// (`revealed`).
    func buildClaim(_ run: ClientSwapRun, lock: LockOutput, revealed: Bool = false) async {
        guard let tipHeight = await readyTip(run, lock: lock, revealed: revealed, impossible: { .claimImpossible($0) }) else {
            return
        }
        do {
            // The quoted rate: the lock holds X plus exactly this fee, so X stays exact.
            guard let request = claimRequest(run, lock: lock, rate: run.terms.claimFeeRate, tipHeight: tipHeight) else { return }
            let claim = try ClaimBuilder(policy: configuration.claimPolicy)
                .build(request, claimKey: run.secrets.claimKey, preimage: run.secrets.preimage)
            if claim.plan.surplus > 0 {
                note(run.id, "the provider locked \(lock.value) sat, more than agreed: the claim pays \(claim.plan.surplus) sat "
                     + "above the amount to the destination rather than as a fee above the cap")
            }
            feed(run.id, .claimSigned(claim.transaction))
        } catch {
            feed(run.id, .claimImpossible("\(error)"))
        }
    }

    private func broadcastClaim(_ claim: Transaction, of run: ClientSwapRun) async {
        do {
            _ = try await chain.broadcast(claim)
            note(run.id, "claim \(claim.txid.hex) broadcast")
        } catch .rejected(let code, let reason) where code == -27 || reason.contains("already") {
            // Known to the node already (a rebroadcast, or a restart after the act).
        } catch {
            // Not accepted: the preimage stays with us (no push), and the machine tries the
            // broadcast again at the next block.
            note(run.id, "claim broadcast failed (\(error)); retrying at the next block")
            await searchLockSpender(run)
            return
        }
        run.claimAccepted = true
        let tip = try? await chain.tip().height
        feed(run.id, .claimAccepted(tipHeight: tip))
    }

    /// After a refused claim: whether the lock is spent, with none of our claims known to
    /// the node. Then something else took it (after the timeout, only the provider's
    /// refund can), possibly while this node was down and its follower saw nothing: the
    /// follower looks back from the lock's block, once per run, and the watch reports the
    /// spender with its depth (`lockSpentElsewhere`).
    private func searchLockSpender(_ run: ClientSwapRun) async {
        guard !run.lockSpenderSearched, let lock = run.state.verifiedLock else { return }
        do {
            guard try await chain.unspentOutput(lock.outPoint, includeMempool: true) == nil,
                  let found = try await chain.transaction(lock.outPoint.txid), found.confirmations > 0 else { return }
            let tip = try await chain.tip().height
            run.lockSpenderSearched = true
            note(run.id, "the lock \(lock.outPoint) is spent and none of this swap's claims is known to the node; "
                 + "looking for its spender")
            await follower.rescan(fromHeight: max(0, tip - found.confirmations + 1))
        } catch {
            // The next refusal asks again.
        }
    }

    /// A claim the node has not (knowingly) accepted. Held by the node already (a crash
    /// right after the broadcast): it is public, so it is rebroadcast and counts as
    /// accepted. Else it goes out only below `revealBefore`; past it the preimage stays
    /// secret and the machine hears `claimTooLate`.
    private func resumeClaim(_ claim: Transaction, revealBefore: Int, of run: ClientSwapRun) async {
        // Any version the node knows (an earlier one may be mined) makes the claim public.
        var known = false
        for txid in run.state.claimVersions.reversed() {
            guard let confirmations = await confirmations(ofClaim: txid) else { continue }
            if confirmations > 0 {
                feed(run.id, .claimVersionConfirmations(txid, confirmations))
                return
            }
            known = true
        }
        if known {
            // Public already: rebroadcast the latest as a best effort, and count it accepted
            // even when the node keeps the earlier version instead.
            _ = try? await chain.broadcast(claim)
            run.claimAccepted = true
            let tip = try? await chain.tip().height
            feed(run.id, .claimAccepted(tipHeight: tip))
            return
        }
        let tip: Int
        do { tip = try await chain.tip().height } catch {
            // Without the tip the rule cannot be checked: nothing is revealed; next block.
            note(run.id, "cannot read the tip to resume the claim (\(error)); retrying at the next block")
            return
        }
        guard tip < revealBefore else {
            feed(run.id, .claimTooLate(tipHeight: tip))
            return
        }
        await broadcastClaim(claim, of: run)
    }

    /// Every block while the claim is unconfirmed: rebroadcast, and when a bump is due
    /// (`ClaimPolicy.bumpDue`: this version unconfirmed for 3 blocks, or near the timeout)
    /// replace it at the node's 1-block estimate when that is higher (audit M-3). A rate
    /// the node did not estimate (`FeeEstimatePolicy.fallback`) is never used for a claim:
    /// the claim stays at its rate and a note says why.
    private func maintainClaim(_ run: ClientSwapRun, tipHeight: Int) async {
        guard let claim = run.state.claim, let lock = run.state.verifiedLock else { return }
        if let (txid, confirmations) = await minedClaimVersion(of: run.state) {
            // Mined (this version or an earlier one): nothing to rebroadcast; the machine
            // moves on with the count.
            feed(run.id, .claimVersionConfirmations(txid, confirmations))
            return
        }
        await broadcastClaim(claim, of: run)
        let policy = configuration.claimPolicy
        guard let request = claimRequest(run, lock: lock, rate: run.terms.claimFeeRate, tipHeight: tipHeight),
              policy.bumpDue(unconfirmedBlocks: run.state.claimVersionAcceptedHeight.map { tipHeight - $0 },
                             blocksLeft: request.blocksLeft) else {
            return
        }
        // A contact payment keeps X exact until the near-timeout window: a bump before it
        // could only come out of X, which the policy refuses.
        guard run.terms.purpose == .swapOut || request.blocksLeft <= policy.lowerAmountWithinBlocks else { return }
        let paidFee = lock.value - claim.outputs.reduce(0) { $0 + $1.value }
        let currentRate = paidFee * 1_000 / Int64(max(1, claim.virtualSize))
        let estimate: ChainFeeEstimate
        do { estimate = try await feeEstimator.estimate(targetBlocks: 1) } catch {
            note(run.id, "no fee bump: the node's fee estimate is unavailable (\(error)); the claim stays at "
                 + "\(currentRate) sat/kvB")
            return
        }
        guard estimate.source != .fallback else {
            note(run.id, "no fee bump: the node has no fee estimate (a fallback rate is never used for a claim); "
                 + "the claim stays at \(currentRate) sat/kvB, \(request.blocksLeft) blocks before the timeout")
            return
        }
        guard estimate.rate.satPerKvB > currentRate,
              // BIP125: the replacement pays at least 1 sat/vB more than the one it replaces.
              let rate = try? FeeRate(satPerKvB: max(estimate.rate.satPerKvB, currentRate + 1_000)) else { return }
        var bumped = request
        bumped.feeRate = rate
        do {
            let signed = try ClaimBuilder(policy: policy)
                .build(bumped, claimKey: run.secrets.claimKey, preimage: run.secrets.preimage)
            if signed.plan.amountDrop > 0 {
                note(run.id, "fee bump lowers the amount by \(signed.plan.amountDrop) sat to confirm before the timeout")
            }
            feed(run.id, .claimSigned(signed.transaction))
        } catch {
            note(run.id, "no fee bump: \(error)")
        }
    }

    /// Whether the chain backend (the client's own node) holds `lock` deep enough to claim:
    /// in a block with the required confirmations, or, for a zero-conf claim, in its
    /// mempool with every input confirmed (a lock chained on unconfirmed parents can vanish
    /// with them, and the claim with it).
    static func lockHolding(_ lock: LockOutput, transaction: Transaction?, requiredConfirmations: Int,
                            chain: any ChainBackend) async -> ClientLockHolding {
        let txid = lock.outPoint.txid
        let confirmations: Int
        var lockTransaction = transaction?.txid == txid ? transaction : nil
        if let found = try? await chain.transaction(txid) {
            confirmations = found.confirmations
            lockTransaction = found.transaction
        } else if let output = try? await chain.unspentOutput(lock.outPoint, includeMempool: true) {
            confirmations = output.confirmations
        } else {
            return .notHeld("the node does not know lock \(txid.hex) (neither in its mempool nor on chain)")
        }
        guard confirmations >= requiredConfirmations else { return .shallow(confirmations: confirmations) }
        guard confirmations == 0 else { return .held }
        guard let lockTransaction else { return .notHeld("lock \(txid.hex) is unconfirmed and its inputs are unknown") }
        for input in lockTransaction.inputs {
            let parent = input.previousOutput
            // gettxout without the mempool reads the chain's UTXO set: a confirmed parent
            // output, even though the lock in the mempool spends it.
            if let found = try? await chain.transaction(parent.txid), found.confirmations > 0 { continue }
            if let output = try? await chain.unspentOutput(parent, includeMempool: false), output.confirmations > 0 {
                continue
            }
            return .notHeld("unconfirmed lock \(txid.hex) spends unconfirmed output \(parent.txid.hex):\(parent.index); "
                            + "waiting for the lock's first confirmation")
        }
        return .held
    }

    private func pushPreimage(_ run: ClientSwapRun) async {
        guard let providerSwapID = run.providerSwapID, !run.preimageDelivered else { return }
        let push = PreimagePush(swapID: providerSwapID, preimage: run.secrets.preimage)
        do {
            try await link(for: run.terms.provider).push(push.encoded)
            run.preimageDelivered = true
        } catch {
            // The claim's witness reveals it on chain too; the provider settles from there.
            note(run.id, "preimage push not delivered (\(error)); the provider can read it from the claim")
        }
    }

    /// Reads the lock's or the claim's confirmations from the chain.
    func checkChain(_ run: ClientSwapRun) async {
        let state = run.state
        if state.phase.claimIsOut, let claim = state.claim {
            if let (txid, confirmations) = await minedClaimVersion(of: state) {
                feed(run.id, .claimVersionConfirmations(txid, confirmations))
            } else if let confirmations = await confirmations(of: claim) {
                feed(run.id, .claimConfirmations(confirmations))
            }
        } else if let lock = state.lock, let found = try? await chain.transaction(lock.txid) {
            feed(run.id, .lockSeen(lock.with(confirmations: found.confirmations)))
        }
    }

    /// The claim's confirmations: from the transaction (mempool, or the chain with an
    /// index), else from its output (gettxout needs no index); nil when neither is known.
    private func confirmations(of claim: Transaction) async -> Int? {
        await confirmations(ofClaim: claim.txid)
    }

    private func confirmations(ofClaim txid: TransactionID) async -> Int? {
        if let found = try? await chain.transaction(txid) { return found.confirmations }
        return try? await chain.unspentOutput(OutPoint(txid: txid, index: 0), includeMempool: true)?.confirmations
    }

    /// The claim version in a block, newest first, with its confirmations; nil when none
    /// is mined. Each version is looked up by its txid: they all spend the same lock.
    private func minedClaimVersion(of state: ClientSwapState) async -> (TransactionID, Int)? {
        for txid in state.claimVersions.reversed() {
            if let confirmations = await confirmations(ofClaim: txid), confirmations > 0 { return (txid, confirmations) }
        }
        return nil
    }

    private func finish(_ run: ClientSwapRun) async {
        run.giveUpTimer?.cancel()
        run.payment?.cancel()
        run.inputs.finish()
        runs[run.id] = nil
        // The claim may confirm before the provider settles: the payment, and its fee,
        // can still be in flight. A swap that ended with its payment held waits on its end.
        if run.state.delivered {
            followRoutingFee(run.id, paymentHash: run.secrets.paymentHash)
        } else if run.state.outcome?.funds.awaitsPayment == true {
            followHeldPayment(run.id, paymentHash: run.secrets.paymentHash, paidSat: run.terms.quote.body.totalSat)
        }
        if !runs.values.contains(where: { $0.terms.provider.pubky == run.terms.provider.pubky }),
           let link = links.removeValue(forKey: run.terms.provider.pubky) {
            await link.stop()
        }
    }
}
