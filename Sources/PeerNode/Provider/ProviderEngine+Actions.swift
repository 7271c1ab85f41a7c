import Bitcoin
import HTLC
import Lightning
import Offers
import Transport

extension ProviderEngine {
    /// Runs one action for a swap and returns what it learned, if anything. Failures are
    /// logged and return nil (or a retryable input): the next block or restart retries.
    func perform(_ action: ProviderSwapAction, swap: ProviderSwapRecord, state: ProviderSwapState) async -> ProviderSwapInput? {
        let id = swap.swapID
        switch action {
        case .pushStatus(let status):
            await pushStatus(status, swap: swap, state: state)
            return nil
        case .watchInvoice:
            watchInvoice(swap)
            return nil
        case .lookupInvoice:
            return await lookupInvoice(swap)
        case .prepareFunding:
            return await prepareFunding(swap)
        case .publishLock(let lock):
            return await publishLock(lock, swap: swap)
        case .watchLock(let lock):
            await watchLock(lock, swap: swap)
            return await locate(lock)
        case .rebroadcastLock(let lock):
            let located = await locate(lock)
            if lockMayBeBroadcast, located == .lockMissing {
                do {
                    _ = try await dependencies.chain.broadcast(lock.transaction)
                    log("provider swap \(id): rebroadcast lock \(lock.txid)")
                } catch {
                    log("provider swap \(id): rebroadcasting lock \(lock.txid) failed: \(error)")
                    // Gone for good only when one of its inputs is spent elsewhere, deep (M-7).
                    if await hasDeepConflict(lock) { return .lockGone }
                }
            } else if located == .lockSeen(confirmations: 0) {
                await bumpStuckLock(lock, swap: swap)
            }
            return nil
        case .withdrawLock(let lock):
            return await withdrawLock(lock, swap: swap)
        case .prepareRefund(let previous):
            guard let lock = state.lock else { return nil }
            return await prepareRefund(lock: lock, replacing: previous, swap: swap)
        case .broadcastRefund(let refund):
            do {
                _ = try await dependencies.chain.broadcast(refund.transaction)
                log("provider swap \(id): refund \(refund.txid) broadcast at \(refund.feeRate)")
                return .refundPublished
            } catch {
                if (try? await dependencies.chain.transaction(refund.txid)) != nil { return .refundPublished }
                log("provider swap \(id): broadcasting refund \(refund.txid) failed: \(error)")
                return .refundPublishFailed
            }
        case .checkRefund(let refund, let atBlock):
            guard let lock = state.lock else { return nil }
            return await refundStatus(refund, lock: lock, atBlock: atBlock)
        case .settleInvoice(let preimage):
            do {
                try await dependencies.lightning.settleInvoice(preimage: preimage)
                log("provider swap \(id): invoice settled")
                return .invoiceSettled
            } catch {
                // Already settled (a retry after a crash) reads as done; cancelled, the machine
                // hears it (no settle can succeed then: the lock must be refunded).
                if let status = try? await dependencies.lightning.lookupInvoice(paymentHash: swap.paymentHash) {
                    if status.state == .settled { return .invoiceSettled }
                    if status.state == .canceled, let tip = try? await dependencies.chain.tip() {
                        log("provider swap \(id): the invoice cannot be settled: the client's HTLC was cancelled")
                        return .invoice(ProviderInvoiceObservation(status, tipHeight: UInt32(clamping: tip.height)))
                    }
                }
                log("provider swap \(id): settling the invoice failed: \(error)")
                return nil
            }
        case .cancelInvoice:
            do {
                try await dependencies.lightning.cancelInvoice(paymentHash: swap.paymentHash)
                log("provider swap \(id): invoice cancelled")
                return .invoiceCancelled
            } catch {
                if let status = try? await dependencies.lightning.lookupInvoice(paymentHash: swap.paymentHash),
                   status.state == .canceled {
                    return .invoiceCancelled
                }
                log("provider swap \(id): cancelling the invoice failed: \(error)")
                return nil
            }
        case .raiseAlarm(let what):
            // One prefix an operator can grep for and a log watcher can page on.
            log("ALARM provider swap \(id): \(what)")
            return nil
        }
    }

    // MARK: status

    /// Sends the client a `SwapStatusUpdate`. Its sequence is the number of status changes
    /// in the stored log, so it rises by one per update, also across restarts.
    func pushStatus(_ status: SwapStatus, swap: ProviderSwapRecord, state: ProviderSwapState) async {
        guard let events = try? await dependencies.store.events(of: swap.swapID) else { return }
        let sequence = Self.statusSequence(of: events)
        let lock = state.lock
        let update = SwapStatusUpdate(swapID: swap.swapID, sequence: sequence, status: status, lock: lock?.reference,
                                      lockTransactionHex: lock?.transaction.serialized.hex)
        await push(swap.client, update.encoded)
    }

    /// How many times the client-visible status changed along `events`.
    static func statusSequence(of events: [SwapEvent]) -> UInt64 {
        var count: UInt64 = 0
        var last: SwapStatus?
        for event in events {
            guard let status = ProviderSwapState.Kind(rawValue: event.kind)?.status, status != last else { continue }
            last = status
            count += 1
        }
        return count
    }

    // MARK: invoice

    func watchInvoice(_ swap: ProviderSwapRecord) {
        let id = swap.swapID
        guard invoiceWatches[id] == nil else { return }
        let lightning = dependencies.lightning
        let chain = dependencies.chain
        let hash = swap.paymentHash
        invoiceWatches[id] = Task { [weak self] in
            do {
                for try await status in lightning.subscribeInvoice(paymentHash: hash) {
                    guard let tip = try? await chain.tip() else { continue }
                    await self?.deliver(.invoice(ProviderInvoiceObservation(status, tipHeight: UInt32(clamping: tip.height))),
                                        to: id)
                }
            } catch {
                self?.log("provider swap \(id): invoice updates ended: \(error)")
            }
            await self?.invoiceWatchEnded(id)
        }
    }

    private func invoiceWatchEnded(_ id: String) {
        invoiceWatches[id] = nil
    }

    func lookupInvoice(_ swap: ProviderSwapRecord) async -> ProviderSwapInput? {
        do {
            let status = try await dependencies.lightning.lookupInvoice(paymentHash: swap.paymentHash)
            let tip = try await dependencies.chain.tip()
            return .invoice(ProviderInvoiceObservation(status, tipHeight: UInt32(clamping: tip.height)))
        } catch {
            log("provider swap \(swap.swapID): looking up the invoice failed: \(error)")
            return nil
        }
    }

    // MARK: lock

    func prepareFunding(_ swap: ProviderSwapRecord) async -> ProviderSwapInput {
        // The payment is held: only now does the amount count as exposure (audit M-5).
        do { try risk.markPaid(swapID: swap.swapID) } catch {
            log("provider swap \(swap.swapID): not locking, \(error); the payment goes back")
            return .fundingFailed(retryable: false)
        }
        let wallet = dependencies.wallet
        let tipHeight: Int
        let rate: FeeRate
        do {
            if let synced = try await wallet.sync() {
                tipHeight = synced.height
            } else {
                tipHeight = try await dependencies.chain.tip().height
            }
            rate = try await dependencies.feeEstimator.feeRate(targetBlocks: configuration.lockConfirmationTarget)
        } catch {
            log("provider swap \(swap.swapID): cannot prepare the lock yet: \(error)")
            return .fundingFailed(retryable: true)
        }
        var amount = swap.accept.body.amountSat
        if let fault = configuration.lockFault, configuration.network == .regtest {
            // A regtest test of a cheating provider (LockFault): the wrong amount, or no lock.
            guard let wrong = fault.lockAmount(agreed: amount) else {
                log("provider swap \(swap.swapID): lock fault \(fault): not locking the agreed \(amount) sat")
                return .fundingFailed(retryable: true)
            }
            log("provider swap \(swap.swapID): lock fault \(fault): locking \(wrong) sat instead of the agreed \(amount) sat")
            amount = wrong
        }
        do {
            let funding = try await prepareLock(swap.contract, amount: amount, rate: rate)
            return .fundingPrepared(ProviderLock(transaction: funding.transaction, outputIndex: UInt32(funding.outputIndex),
                                                 fee: funding.fee, height: UInt32(clamping: tipHeight)))
        } catch {
            log("provider swap \(swap.swapID): cannot lock \(amount) sat: \(error)")
            if case .backend = error { return .fundingFailed(retryable: true) }
            return .fundingFailed(retryable: false)
        }
    }

    /// Builds the lock. Locks of concurrent swaps chain on one another's change (issue 14),
    /// and a lock's change is spendable only once it is broadcast: while another swap's lock
    /// is prepared but not yet out, a lock short of funds waits for it (a store write and a
    /// broadcast, milliseconds) instead of giving the payment back or waiting for a block.
    func prepareLock(_ contract: SwapContract, amount: Int64, rate: FeeRate) async throws(WalletError) -> ContractFunding {
        let wallet = dependencies.wallet
        var waits = 0
        while true {
            switch try await wallet.prepareFundingOrWait(contract: contract, amount: amount, feeRate: rate) {
            case .prepared(let funding): return funding
            case .waitForBroadcast(let needed, let available):
                guard waits < Self.preparedLockWaits else { throw .insufficientFunds(needed: needed, available: available) }
            }
            waits += 1
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
    }

    /// Publishes the recorded lock unless the chain already has it: the same bytes every
    /// time, so however often this runs there is one lock.
    func publishLock(_ lock: ProviderLock, swap: ProviderSwapRecord) async -> ProviderSwapInput {
        if await isKnown(lock) { return .lockPublished }
        if !lockMayBeBroadcast {
            // A regtest test of a provider that only pushes its lock (LockFault.pushOnly):
            // report it published so the status update carrying the lock goes out.
            log("provider swap \(swap.swapID): lock fault push-only: lock \(lock.txid) pushed, never broadcast")
            return .lockPublished
        }
        do {
            _ = try await dependencies.wallet.publish(lock.transaction)
            log("provider swap \(swap.swapID): lock \(lock.txid) broadcast (\(lock.output.value) sat)")
            return .lockPublished
        } catch {
            if await isKnown(lock) { return .lockPublished }
            log("provider swap \(swap.swapID): publishing lock \(lock.txid) failed: \(error)")
            // Core's "missing inputs" is no proof (audit M-7): an input may come from a
            // parent that left the mempool and can come back, and then the lock could still
            // confirm after we gave the payment back. Only a confirmed spend of one of its
            // inputs by another transaction, deep enough not to be reorged away, is.
            if case .backend(.rejected(let code, let reason)) = error,
               code == -25 || reason.contains("missingorspent"),
               await hasDeepConflict(lock) {
                return .lockPublishFailed(permanent: true)
            }
            return .lockPublishFailed(permanent: false)
        }
    }

    /// A lock still unconfirmed `lockBumpAfterBlocks` after it was built, paying less than
    /// today's estimate, gets a child from the wallet (CPFP, audit H-4): the client waits for
    /// its confirmations and may claim only while the claim rule allows. Never by RBF: the
    /// client (and other swaps' locks chained on its change) rely on the lock's txid. One
    /// child per tip; a second one fails (the change is spent) and is only logged.
    func bumpStuckLock(_ lock: ProviderLock, swap: ProviderSwapRecord) async {
        let id = swap.swapID
        guard let tip = try? await dependencies.chain.tip(), tip.height - Int(lock.height) >= Self.lockBumpAfterBlocks,
              lockBumpTips[id] != UInt32(clamping: tip.height) else { return }
        lockBumpTips[id] = UInt32(clamping: tip.height)
        guard let estimate = try? await dependencies.feeEstimator.feeRate(targetBlocks: configuration.lockConfirmationTarget),
              estimate.satPerKvB > lock.fee * 1_000 / Int64(max(1, lock.transaction.virtualSize)) else { return }
        do {
            let child = try await dependencies.wallet.bumpByChild(of: lock.txid, feeRate: estimate)
            log("provider swap \(id): lock \(lock.txid) unconfirmed; child \(child.txid) brings it to \(estimate)")
            await recordLockChild(child, swapID: id)
        } catch {
            log("provider swap \(id): no child for the stuck lock \(lock.txid): \(error)")
        }
    }

    /// Takes an unconfirmed lock back (audit H-4): its inputs spent to the wallet, replacing
    /// it in the mempool (BIP125) when it is there. Never while anything spends it in the
    /// mempool (`getmempoolentry`'s descendant count): that is a claim, or other swaps'
    /// locks chained on its change, which a replacement would evict; a child pays for it
    /// then. Once the withdrawal is deep the lock can never confirm (`.lockGone`).
    private func withdrawLock(_ lock: ProviderLock, swap: ProviderSwapRecord) async -> ProviderSwapInput? {
        let id = swap.swapID
        if await hasDeepConflict(lock) { return .lockGone }
        let chain = dependencies.chain
        var inMempool = false
        do {
            if let found = try await chain.transaction(lock.txid) {
                if found.confirmations > 0 { return .lockSeen(confirmations: found.confirmations) }
                inMempool = true
                let descendants = try await chain.mempoolDescendantCount(lock.txid) ?? 1
                if descendants > 1 {
                    log("provider swap \(id): lock \(lock.txid) has \(descendants - 1) descendant(s) in the mempool: "
                        + "not replaced, a child pays for it")
                    await bumpStuckLock(lock, swap: swap)
                    return nil
                }
            }
        } catch {
            log("provider swap \(id): looking up lock \(lock.txid) failed: \(error)")
            return nil
        }
        do {
            let rate = try await dependencies.feeEstimator.feeRate(targetBlocks: configuration.lockConfirmationTarget)
            let withdrawal = try await dependencies.wallet.withdraw(lock.transaction, feeRate: rate,
                                                                   originalFee: inMempool ? lock.fee : nil)
            log("provider swap \(id): lock \(lock.txid) unconfirmed and no longer safe to claim: its inputs go back "
                + "to the wallet by \(withdrawal.txid)")
            await recordLockWithdrawal(withdrawal, swapID: id)
        } catch {
            log("provider swap \(id): cannot take lock \(lock.txid) back: \(error)")
            // Its inputs may be missing with a parent that can come back (audit M-7): the
            // lock itself is then sent again, so it is refunded once it confirms.
            if !inMempool, lockMayBeBroadcast { _ = try? await chain.broadcast(lock.transaction) }
        }
        return nil
    }

    /// Whether one of the lock's inputs is spent by another transaction at least
    /// `ProviderSwapMachine.refundCancelDepth` blocks deep.
    private func hasDeepConflict(_ lock: ProviderLock) async -> Bool {
        guard let tip = try? await dependencies.chain.tip() else { return false }
        for input in lock.transaction.inputs {
            if let spender = await dependencies.wallet.confirmedSpender(of: input.previousOutput), spender.txid != lock.txid,
               tip.height - spender.height + 1 >= ProviderSwapMachine.refundCancelDepth {
                return true
            }
        }
        return false
    }

    /// False only under the regtest test fault `push-only` (LockFault).
    var lockMayBeBroadcast: Bool {
        guard let fault = configuration.lockFault, configuration.network == .regtest else { return true }
        return fault.broadcastsLock
    }

    /// Whether the chain (or the wallet, which sees its own transactions confirm even on a
    /// node without a transaction index) knows the lock.
    private func isKnown(_ lock: ProviderLock) async -> Bool {
        if (try? await dependencies.chain.transaction(lock.txid)) != nil { return true }
        return await dependencies.wallet.transaction(lock.txid) != nil
    }

    /// Where the lock is: `.lockSeen` with its confirmations, or `.lockMissing`.
    func locate(_ lock: ProviderLock) async -> ProviderSwapInput? {
        do {
            if let found = try await dependencies.chain.transaction(lock.txid) {
                return .lockSeen(confirmations: found.confirmations)
            }
        } catch {
            log("looking up lock \(lock.txid) failed: \(error)")
            return nil
        }
        if let known = await dependencies.wallet.transaction(lock.txid) {
            guard let height = known.height, let tip = try? await dependencies.chain.tip() else {
                return .lockSeen(confirmations: 0)
            }
            return .lockSeen(confirmations: max(tip.height - height + 1, 0))
        }
        return .lockMissing
    }

    // MARK: refund

    func prepareRefund(lock: ProviderLock, replacing previous: ProviderRefund?, swap: ProviderSwapRecord) async -> ProviderSwapInput? {
        let id = swap.swapID
        do {
            let tip = UInt32(clamping: try await dependencies.chain.tip().height)
            if previous != nil, refundBumpTips[id] == tip { return nil }
            let escalation = RefundEscalation(timeoutHeight: swap.context.timeoutHeight, htlcExpiry: lock.htlcExpiry,
                                              basePercent: configuration.maxRefundFeePercent)
            let target = escalation.confirmationTarget(configuration.refundConfirmationTarget, tip: tip)
            let estimate = try await dependencies.feeEstimator.feeRate(targetBlocks: target)
            var rate = try escalation.rate(estimate: estimate, previous: previous?.feeRate,
                                           step: configuration.refundBumpStep, tip: tip)
            let destination: Script
            if let previous { destination = previous.destination } else { destination = try await refundDestination(swap) }
            let address = try Address(script: destination)
            let dust = DustLimit.threshold(for: try DestinationType(address: address))
            let vsize = SpendSize.refund(contract: swap.contract, destination: try DestinationType(address: address))
            // Every version, the first included (audit L-4), stays within the cap of the
            // moment; at the deadline the cap is the whole lock but dust.
            let cap = escalation.maxFee(lockValue: lock.output.value, dust: dust, tip: tip)
            if rate.fee(forVirtualSize: vsize) > cap {
                let capped = try FeeRate(satPerKvB: cap * 1_000 / Int64(max(1, vsize)))
                if let previous, capped.satPerKvB < previous.feeRate.satPerKvB + configuration.refundBumpStep.satPerKvB {
                    // No room to outbid the version out there: rebroadcast it as it is.
                    return .refundStatus(.missing, atBlock: false)
                }
                rate = capped
            }
            let refundKey = try dependencies.keyChain.secrets(index: swap.record.swapIndex,
                                                                           scheme: swap.record.keyScheme).refundKey
            let signed = try RefundBuilder.build(RefundRequest(contract: swap.contract, lock: lock.output,
                                                               destination: address, feeRate: rate),
                                                 refundKey: refundKey)
            if previous != nil { refundBumpTips[id] = tip }
            if let left = escalation.blocksLeft(tip: tip), left <= 2 {
                log("provider swap \(id): refund at \(rate) with \(left) block(s) left before the HTLC deadline")
            }
            return .refundPrepared(ProviderRefund(transaction: signed.transaction, feeRate: rate, fee: signed.fee,
                                                  destination: destination))
        } catch {
            log("provider swap \(id): building the refund failed: \(error)")
            return .refundFailed
        }
    }

    /// The address every refund of `swap` pays: taken from the wallet once and recorded
    /// with the swap before its first use (audit M-6: a fresh address per failed build, in a
    /// fee spike one each block, pushed the refund past the wallet's gap limit, where a
    /// restarted wallet no longer saw it).
    func refundDestination(_ swap: ProviderSwapRecord) async throws -> Script {
        let key = "provider.refund_destination.\(swap.swapID)"
        if let recorded = try await dependencies.store.value(forKey: key) { return Script(bytes: recorded) }
        let script = await dependencies.wallet.newAddress().scriptPubKey
        try await dependencies.store.setValue(script.bytes, forKey: key)
        return script
    }

    /// Where the refund stands. Another version of it (an earlier bump) or a claim may
    /// have spent the lock instead; the chain watch tells those apart by their witness.
    func refundStatus(_ refund: ProviderRefund, lock: ProviderLock, atBlock: Bool) async -> ProviderSwapInput? {
        let chain = dependencies.chain
        do {
            if let found = try await chain.transaction(refund.txid) {
                return .refundStatus(found.confirmations > 0 ? .confirmed(found.confirmations) : .unconfirmed, atBlock: atBlock)
            }
            if try await chain.unspentOutput(lock.outPoint, includeMempool: true) != nil {
                return .refundStatus(.missing, atBlock: atBlock)
            }
            if try await chain.unspentOutput(lock.outPoint, includeMempool: false) != nil {
                // Spent in the mempool by something else: an earlier version, or a claim.
                return .refundStatus(.unconfirmed, atBlock: atBlock)
            }
            // The lock itself is nowhere (audit M-7: evicted, never relayed): no refund can
            // spend it until it is back. Spent in a block, the chain watch reports it.
            if await locate(lock) == .lockMissing { return .lockMissing }
            return nil
        } catch {
            log("checking refund \(refund.txid) failed: \(error)")
            return nil
        }
    }
}
