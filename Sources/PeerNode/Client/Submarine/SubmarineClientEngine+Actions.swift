import Bitcoin
import HTLC
import Offers
import Transport

extension SubmarineClientEngine {
    /// Performs one action of the machine. Only a failed write throws: the actions after it
    /// must not run.
    func perform(_ action: SubmarineClientAction, for run: SubmarineClientRun) async throws(ClientEngineError) {
        switch action {
        case .persist(let state): try await persist(state, of: run)
        case .fundLock(let contract, let amountSat): await fundLock(run, contract: contract, amountSat: amountSat)
        case .broadcastLock(let funding): await broadcastLock(funding, of: run)
        case .takeBackFunding(let funding): await takeBackFunding(funding, of: run)
        case .checkChain: await checkChain(run)
        case .buildRefund: await signRefund(run, previous: nil, tipHeight: nil)
        case .bumpRefund(let previous, let tipHeight): await signRefund(run, previous: previous, tipHeight: tipHeight)
        case .broadcastRefund(let refund): await broadcastRefund(refund, of: run)
        case .prepareCooperativeRefund(let lock): await prepareCooperativeRefund(run, lock: lock)
        case .requestCooperativeRefund(let round): await requestCooperativeRefund(run, round)
        case .reportPaid(let preimage):
            // Public now: the payee released it to be paid, and it is the user's receipt.
            note(run.id, "the invoice is paid: preimage \(preimage.hex) is the proof of payment")
        case .finish: await finish(run)
        }
    }

    // MARK: persist

    private func persist(_ state: SubmarineClientState, of run: SubmarineClientRun) async throws(ClientEngineError) {
        var data = state.json
        if case .object(var members) = data {
            // The provider's signed promise, kept as received, and the lock's fee (the
            // wallet's figure; the funding's inputs are not in the record).
            if state.phase == .accepted, let accept = run.accept { members["accept"] = accept.json }
            if state.phase == .lockIntent, let fee = run.lockFeeSat { members["lock_fee_sat"] = .integer(fee) }
            data = .object(members)
        }
        let now = Int64(clock.nowUnix)
        let id = run.id
        _ = try await storeCall { () async throws(StoreError) in
            try await store.append(state.phase.rawValue, data: data, isFinal: state.phase.isFinal, to: id, at: now)
        }
        let detail = describe(state, of: run)
        let step = state.phase.rawValue + "\u{0}" + detail
        guard step != run.lastReportedStep else { return }
        run.lastReportedStep = step
        report(run.id, state.phase.rawValue, detail)
    }

    private func describe(_ state: SubmarineClientState, of run: SubmarineClientRun) -> String {
        let network = configuration.network
        switch state.phase {
        case .quoted: return "quoted"
        case .accepted:
            return "the provider's accept is verified: contract \(state.contract?.encodedAddress ?? "?"), timeout height "
                + "\(state.timeoutHeight ?? 0)"
        case .lockIntent:
            return "lock \(state.lock?.outPoint.txid.hex ?? "?") signed and recorded (\(OffersError.sats(state.lock?.value ?? 0)), "
                + "fee \(OffersError.sats(run.lockFeeSat ?? 0)))"
        case .lockBroadcast:
            return "lock \(state.lock?.outPoint.txid.hex ?? "?") broadcast, \(state.lockConfirmations) of "
                + "\(run.machine.settings.lockConfirmationsRequired) confirmations"
        case .lockConfirmed:
            return "lock confirmed (\(state.lockConfirmations)); the provider pays the invoice now"
                + (state.coopRefundFallback.map { "; no cooperative refund (\($0))" } ?? "")
        case .coopSigned:
            return "the invoice is paid (the provider's cooperative claim request carried the preimage); co-signed its "
                + "key-path claim \(state.coopClaim?.txid.hex ?? "?")"
        case .coopRefundRequested:
            return "the provider cannot pay: asking it to co-sign refund \(state.coopRefund?.txid.hex ?? "?") (round "
                + "\(state.coopRefundRounds))"
        case .paid:
            return "the invoice is paid (proof from \(state.preimageSource?.rawValue ?? "?"))"
                + (state.claimTxid.map { "; the provider's claim \($0.hex) has \(state.claimConfirmations) confirmations" } ?? "")
        case .refundBroadcast:
            let destination = state.refund.flatMap { $0.outputs.first }.flatMap { try? Address(script: $0.scriptPubKey) }
            return "refund \(state.refund?.txid.hex ?? "?") to \(destination?.encoded(for: network) ?? "the wallet"), "
                + "\(state.refundConfirmations) confirmations"
        case .completed, .refunded, .abandoned: return state.outcome?.description ?? state.phase.rawValue
        }
    }

    // MARK: the lock

    private func fundLock(_ run: SubmarineClientRun, contract: SwapContract, amountSat: Int64) async {
        if let fault = configuration.lockFault {
            note(run.id, "lock fault \(fault): locking \(amountSat) sat instead of the agreed \(run.record.terms.lockAmountSat) sat")
        }
        do {
            _ = try? await wallet.sync()
            let rate = try await feeEstimator.feeRate(targetBlocks: configuration.lockFeeTargetBlocks)
            let funding = try await wallet.prepareFunding(contract: contract, amount: amountSat, feeRate: rate)
            run.lockFeeSat = funding.fee
            run.preparedFunding = funding.txid
            feed(run.id, .lockFunded(funding.transaction))
        } catch {
            feed(run.id, .fundingFailed("\(error)"))
        }
    }

    /// Sends the recorded funding: the same bytes every time. The lock is watched first,
    /// so its confirmations and any spend of it are heard from the first broadcast on.
    private func broadcastLock(_ funding: Transaction, of run: SubmarineClientRun) async {
        run.preparedFunding = nil
        await watch(run)
        await keepProviderReachable(run)
        if let found = try? await chain.transaction(funding.txid) {
            feed(run.id, .lockBroadcastAccepted)
            if found.confirmations > 0 {
                feed(run.id, .lockConfirmations(found.confirmations))
            } else {
                await liftStuckFunding(funding, of: run)
            }
            return
        }
        do {
            _ = try await wallet.publish(funding)
            note(run.id, "lock \(funding.txid.hex) broadcast")
            feed(run.id, .lockBroadcastAccepted)
        } catch {
            if (try? await chain.transaction(funding.txid)) != nil {
                feed(run.id, .lockBroadcastAccepted)
                return
            }
            // Sent again at each block while it is in none (the machine asks); never a new lock.
            note(run.id, "broadcasting lock \(funding.txid.hex) failed (\(error)); it is sent again at the next block")
        }
    }

    // MARK: the refund

    /// Signs the first refund (`previous` nil) or a bump of `previous`, once per block, at
    /// the estimate, at least `refundBumpStep` above the version it replaces, and never
    /// above `maxRefundFeePercent` of the lock (at the cap the version out there is sent
    /// again instead).
    private func signRefund(_ run: SubmarineClientRun, previous: Transaction?, tipHeight: Int?) async {
        guard let lock = run.state.lock, let contract = run.state.contract else { return }
        if previous != nil, let tipHeight, run.refundBumpTip == tipHeight { return }
        do {
            let destination = try await refundDestination(run)
            let destinationType = try DestinationType(address: destination)
            let vsize = SpendSize.refund(contract: contract, destination: destinationType)
            var rate = try await feeEstimator.feeRate(targetBlocks: configuration.refundFeeTargetBlocks)
            if let previous {
                // Its own size: a key-path refund it replaces is smaller than this one.
                let paid = lock.value - previous.outputs.reduce(Int64(0)) { $0 + $1.value }
                let previousRate = paid * 1_000 / Int64(max(1, previous.virtualSize))
                rate = try FeeRate(satPerKvB: max(rate.satPerKvB, previousRate + configuration.refundBumpStep.satPerKvB))
            }
            let cap = lock.value * configuration.maxRefundFeePercent / 100
            if rate.fee(forVirtualSize: vsize) > cap {
                if let previous {
                    note(run.id, "the refund's fee is at its cap (\(configuration.maxRefundFeePercent)% of the lock): "
                         + "sending \(previous.txid.hex) again")
                    await broadcastRefund(previous, of: run)
                    return
                }
                rate = try FeeRate(satPerKvB: cap * 1_000 / Int64(max(1, vsize)))
            }
            let signed = try RefundBuilder.build(RefundRequest(contract: contract, lock: lock, destination: destination,
                                                               feeRate: rate), refundKey: run.refundKey)
            if previous != nil { run.refundBumpTip = tipHeight }
            note(run.id, (previous == nil ? "refund" : "refund bump") + " \(signed.transaction.txid.hex) at "
                 + "\(rate.satPerKvB / 1_000) sat/vB (fee \(OffersError.sats(signed.fee)))")
            feed(run.id, .refundSigned(signed.transaction))
        } catch {
            note(run.id, "signing the refund failed: \(error); tried again at the next block")
        }
    }

    /// The address every refund of this swap pays: taken from the wallet once and recorded
    /// before its first use, so every bump pays the same one.
    func refundDestination(_ run: SubmarineClientRun) async throws -> Address {
        let key = "client.submarine.refund_destination.\(run.id)"
        if let recorded = try await store.value(forKey: key) { return try Address(script: Script(bytes: recorded)) }
        let script = await wallet.newAddress().scriptPubKey
        try await store.setValue(script.bytes, forKey: key)
        return try Address(script: script)
    }

    private func broadcastRefund(_ refund: Transaction, of run: SubmarineClientRun) async {
        do {
            _ = try await chain.broadcast(refund)
            note(run.id, "refund \(refund.txid.hex) broadcast")
        } catch {
            if (try? await chain.transaction(refund.txid)) != nil { return }
            // An earlier version or a claim may hold the lock: the chain watch tells.
            note(run.id, "broadcasting refund \(refund.txid.hex) failed (\(error)); tried again at the next block")
        }
    }

    // MARK: the end

    private func finish(_ run: SubmarineClientRun) async {
        if let prepared = run.preparedFunding {
            // Signed but refused by the machine (or never recorded): its coins go back.
            await wallet.discard(prepared)
            run.preparedFunding = nil
        }
        stopTasks(of: run)
        runs[run.id] = nil
        if !runs.values.contains(where: { $0.record.provider.pubky == run.record.provider.pubky }),
           let link = links.removeValue(forKey: run.record.provider.pubky) {
            await link.stop()
        }
    }
}
