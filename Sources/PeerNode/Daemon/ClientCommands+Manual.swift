import Bitcoin
import HTLC
import Lightning
import Offers
import Transport

extension ClientCommands {
    /// How long a manual claim or refund waits for the engine to put its transaction out.
    static let manualWaitMilliseconds: UInt64 = 20_000

    /// `swap claim <id>`: a client swap that is not final goes through the engine's
    /// recovery path whatever its cached phase says: the lock is looked up again (provider
    /// status and chain), verified, and claimed once the confirmation policy allows. A
    /// final swap, or one whose lock cannot be claimed now, is answered with why.
    func claim(swapID id: String, progress: CommandProgress) async throws(ControlError) -> JSONValue {
        let (record, last) = try await storedSwap(id)
        guard record.role == .client else {
            throw ControlError(code: "not_claimable",
                               message: "swap \(id) is one this node provides: its client claims it; "
                                + "this node gets its lock back with `peernode swap refund \(id)` after the timeout")
        }
        if last.isFinal { try await reopen(id, last: last, progress: progress) }
        progress.bind(id)
        if await engine.state(of: id) == nil {
            // Not running (its run stopped on a failed write): resume it from the record.
            do { _ = try await engine.recover() } catch { throw Self.controlError(error) }
        } else {
            await engine.feed(id, .recover)
        }
        progress.stage("claim", "looking for the lock and claiming it")
        let state = await waitForClient(id) { $0.phase.claimIsOut || $0.phase.isFinal }
        guard let state else {
            throw ControlError(code: "not_claimable",
                               message: "swap \(id) cannot be resumed from its record (the daemon's log says why)")
        }
        if state.phase.claimIsOut, let claim = state.claim {
            return .object(["status": .string("claim_broadcast"), "swap_id": .string(id), "phase": .string(state.phase.rawValue),
                            "claim_txid": .string(claim.txid.hex), "claim_confirmations": .integer(state.claimConfirmations)])
        }
        throw ControlError(code: "not_claimable", message: "swap \(id): \(Self.whyNoClaim(state))")
    }

    private static func whyNoClaim(_ state: ClientSwapState) -> String {
        switch state.phase {
        case .failed, .abandoned:
            return "ended \(state.phase.rawValue): \(state.outcome?.description ?? "no reason recorded")"
        case .payStarted, .paymentInFlight:
            return "no lock from the provider is known yet (\(state.phase.rawValue)); the payment is held and returns "
                + "when the provider cancels the invoice or the HTLC expires"
        case .lockSeen:
            return "the lock \(state.lock?.txid.hex ?? "") is still being verified"
        case .coopRequested:
            return "the cooperative round is ending; the claim goes out through the key path or the script path"
        case .lockVerified:
            return "the lock has \(state.lock?.confirmations ?? 0) confirmation(s), fewer than the policy needs before claiming, "
                + "or this node does not hold it yet (a lock only pushed by the provider is never claimed); it is checked "
                + "again at every block while more than \(TimelockPolicy.firstClaimCutoff) blocks are left before the timeout"
        default:
            return "it is \(state.phase.rawValue)"
        }
    }

    /// Polls the engine's state of a running swap until `done` (or the wait ends); nil
    /// when the engine does not run it.
    private func waitForClient(_ id: String, _ done: (ClientSwapState) -> Bool) async -> ClientSwapState? {
        var waited: UInt64 = 0
        var last: ClientSwapState?
        while waited <= Self.manualWaitMilliseconds {
            guard let state = await engine.state(of: id) else { break }
            last = state
            if done(state) { return state }
            do { try await services.loop.sleeper.sleep(milliseconds: 200) } catch { break }
            waited += 200
        }
        // Not run any more: it finished (its record has the end), or it was never resumed.
        if let stored = try? await services.store.lastEvent(of: id),
           let state = try? ClientSwapState(kind: stored.kind, data: stored.data), state.phase.isFinal {
            return state
        }
        return last
    }

    /// `swap refund <id>`: a provider swap whose lock is out and whose timeout has passed
    /// is refunded through the provider engine, whatever its cached state; otherwise the
    /// answer says why not (nothing locked, the timeout still ahead, already final).
    func refund(swapID id: String, progress: CommandProgress) async throws(ControlError) -> JSONValue {
        let (record, last) = try await storedSwap(id)
        guard record.role == .provider else {
            throw ControlError(code: "not_refundable",
                               message: "swap \(id) is one this node pays as a client: the provider refunds its own lock; "
                                + "this node's Lightning payment returns when the invoice is cancelled or expires")
        }
        guard let provider else {
            throw .notAvailable("swap.refund is not available: this node runs no provider engine (provider=0)")
        }
        if last.isFinal {
            let why: String
            switch ProviderSwapState.Kind(rawValue: last.kind) {
            case .settled?: why = "the client claimed the lock and the invoice is settled"
            case .refunded?: why = "the lock is already refunded and the invoice cancelled"
            case .cancelled?: why = "nothing was locked; the invoice was cancelled"
            default: why = "it ended as \(last.kind)"
            }
            throw ControlError(code: "not_refundable", message: "swap \(id) is final: \(why); nothing to refund")
        }
        if await provider.state(of: id) == nil {
            do { try await provider.recover() } catch {
                throw .failed("swap \(id) cannot be resumed: \(error)")
            }
        }
        guard let state = await provider.state(of: id), let timeout = await provider.swaps[id]?.accept.body.timeoutHeight else {
            throw ControlError(code: "not_refundable",
                               message: "swap \(id) cannot be resumed from its record (the daemon's log says why)")
        }
        guard state.lock != nil else {
            throw ControlError(code: "not_refundable", message: "swap \(id) has nothing locked (\(state.kind.rawValue))")
        }
        let tip: ChainTip
        do { tip = try await services.chain.tip() } catch {
            throw .backend("the chain backend is unreachable: \(error)")
        }
        switch state {
        case .refundIntent, .refundBroadcast:
            await provider.deliver(.recover, to: id)
        case .claimObserved, .coopSigned:
            throw ControlError(code: "not_refundable",
                               message: "swap \(id): the client revealed the preimage (its claim, or its cooperative "
                                + "request); the invoice is being settled")
        default:
            guard UInt32(clamping: tip.height) >= timeout else {
                throw ControlError(code: "not_refundable",
                                   message: "swap \(id): the lock can be refunded from height \(timeout); the tip is "
                                    + "\(tip.height), \(Int(timeout) - tip.height) block(s) to go (until then the client may claim)")
            }
            progress.stage("refund", "the timeout (height \(timeout)) has passed at \(tip.height); refunding the lock")
            await provider.deliver(.block(height: UInt32(clamping: tip.height)), to: id)
        }
        var waited: UInt64 = 0
        while waited <= Self.manualWaitMilliseconds {
            switch await provider.state(of: id) {
            case .refundIntent(_, let refund)?, .refundBroadcast(_, let refund)?:
                return .object(["status": .string("refund_broadcast"), "swap_id": .string(id),
                                "refund_txid": .string(refund.transaction.txid.hex), "fee_sat": .integer(refund.fee)])
            case nil:
                let final = (try? await services.store.lastEvent(of: id))?.kind ?? "unknown"
                return .object(["status": .string(final), "swap_id": .string(id)])
            default:
                break
            }
            do { try await services.loop.sleeper.sleep(milliseconds: 200) } catch { break }
            waited += 200
        }
        let now = await provider.state(of: id)?.kind.rawValue ?? "unknown"
        throw ControlError(code: "not_refundable", message: "swap \(id): no refund was built within "
                           + "\(Self.manualWaitMilliseconds / 1_000) s (state \(now)); the daemon's log says why")
    }

    /// Reopens a final swap when `ClientReopenRule` allows it (audit H-1), recording why in
    /// the store (`SwapStore.reopen`); otherwise says why not and changes nothing.
    private func reopen(_ id: String, last: SwapEvent, progress: CommandProgress) async throws(ControlError) {
        guard let state = try? ClientSwapState(kind: last.kind, data: last.data) else {
            throw ControlError(code: "not_claimable", message: "swap \(id) is final (\(last.kind)) and its record does not decode")
        }
        let refused = { (why: String) in
            ControlError(code: "not_claimable", message: "swap \(id) is final (\(last.kind)): "
                         + "\(state.outcome?.description ?? last.kind); not reopened: \(why)")
        }
        progress.stage("reopen", "checking whether the swap can still be claimed")
        let tip: Int
        let payment: PaymentUpdate.Status?
        var lockUnspent: Bool?
        do {
            tip = try await services.chain.tip().height
            let events = try await services.store.events(of: id)
            guard let json = events.first(where: { $0.kind == ClientSwapPhase.accepted.rawValue })?.data["accept"] else {
                throw refused("no provider accept is recorded (nothing was paid)")
            }
            let accept = try Signed<SwapAccept>(json: json)
            payment = try await services.lightning.paymentStatus(paymentHash: accept.body.paymentHash)
            let outPoint = state.verifiedLock?.outPoint
                ?? state.lock.flatMap { lock in lock.outputIndex.map { OutPoint(txid: lock.txid, index: UInt32($0)) } }
            if let outPoint {
                lockUnspent = try await services.chain.unspentOutput(outPoint, includeMempool: true) != nil
            }
        } catch let error as ControlError {
            throw error
        } catch {
            throw ControlError(code: "not_claimable", message: "swap \(id): cannot check whether it can be reopened: \(error)")
        }
        let phase: ClientSwapPhase
        do {
            phase = try ClientReopenRule.check(state, tipHeight: tip, payment: payment, lockUnspent: lockUnspent)
        } catch {
            throw refused(error.description)
        }
        var resumed = state
        resumed.phase = phase
        resumed.outcome = nil
        // The give-up timer counts again from now, and only while no lock is seen.
        resumed.paidAtUnix = services.clock.nowUnix
        let left = (state.timeoutHeight ?? tip) - tip
        let reason = "swap claim after \(last.kind): the payment is still held, \(left) block(s) to the timeout"
            + (lockUnspent == true ? ", the lock unspent" : "")
        do {
            _ = try await services.store.reopen(phase.rawValue, data: resumed.json, reason: reason, to: id,
                                                 at: Int64(services.clock.nowUnix))
        } catch {
            throw .failed("swap \(id) could not be reopened: \(error)")
        }
        progress.stage("reopen", reason)
    }

    private func storedSwap(_ id: String) async throws(ControlError) -> (SwapRecord, SwapEvent) {
        do {
            guard let record = try await services.store.swap(id), let last = try await services.store.lastEvent(of: id) else {
                throw ControlError.notFound("no swap with id \(id)")
            }
            return (record, last)
        } catch let error as ControlError {
            throw error
        } catch {
            throw .failed("the swap store cannot be read: \(error)")
        }
    }
}
