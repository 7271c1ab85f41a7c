import Bitcoin
import HTLC

extension ProviderEngine {
    /// Adds a lock to the engine's chain watch: the contract's script (to see the lock
    /// confirm) and its outpoint (to see the claim or refund that spends it).
    func watchLock(_ lock: ProviderLock, swap: ProviderSwapRecord) async {
        lockTxids[lock.txid] = swap.swapID
        lockOutpoints[lock.outPoint] = swap.swapID
        guard let watchID else { return }
        await dependencies.follower.watch(WatchFilter(scripts: [swap.contract.scriptPubKey], outpoints: [lock.outPoint]),
                                          for: watchID)
    }

    /// Turns the follower's events into swap inputs.
    func handle(_ event: ChainEvent) {
        switch event {
        case .blockConnected(let tip):
            guard newBlocks.admit(tip) else { return }
            let height = UInt32(clamping: tip.height)
            for id in states.keys { deliver(.block(height: height), to: id) }
            watchHeldHTLCs(tip: height)
        case .blockDisconnected(let tip):
            // The next block's checks (lock located again, refund checked) see the new chain.
            newBlocks.disconnected(tip)
        case .transaction(let watched):
            if let id = lockTxids[watched.txid] {
                deliver(.lockSeen(confirmations: watched.confirmations), to: id)
            }
            for spent in watched.spent {
                guard let id = lockOutpoints[spent.outpoint], let swap = swaps[id],
                      let input = spendInput(watched, spending: spent.outpoint, swap: swap) else { continue }
                deliver(input, to: id)
            }
        case .transactionLeftMempool(let txid):
            if let id = lockTxids[txid] { deliver(.lockMissing, to: id) }
        }
    }

    /// Once a lock is out the invoice's subscription is dropped (it would hold one of the
    /// Lightning client's few connections), but the HTLC is still looked up while the lock
    /// is open: LND may cancel it (at E − 12, or its operator may), and the machine must
    /// raise the alarm and stop counting on a settle (audit H-4, M-7). Each open lock is
    /// looked up every `htlcCheckInterval` blocks, and at every block from E − 12 − 1 on
    /// (where LND cancels by itself); one lookup at a time, so settles and new swaps'
    /// lookups are not queued behind a burst of them.
    private func watchHeldHTLCs(tip: UInt32) {
        var due: [(String, ProviderSwapRecord)] = []
        for (id, state) in states {
            guard let lock = state.lock, lock.htlcCancelledHeight == nil, let swap = swaps[id] else { continue }
            switch state.kind {
            case .fundingIntent, .lockBroadcast, .lockConfirmed, .refundIntent, .refundBroadcast, .claimPending:
                let nearExpiry = lock.htlcExpiry.map { tip + RefundEscalation.holdExpiryDelta + 1 >= $0 } ?? false
                let periodic = tip >= lock.height && (tip - lock.height) % Self.htlcCheckInterval == 0
                if nearExpiry || periodic { due.append((id, swap)) }
            default:
                continue
            }
        }
        guard !due.isEmpty else { return }
        Task { [weak self] in
            for (id, swap) in due {
                guard let self, let seen = await self.lookupInvoice(swap) else { continue }
                await self.deliver(seen, to: id)
            }
        }
    }

    /// A spend of a lock: our refund, or a claim (any other spend: audit C-2), read from
    /// the witness of the input that spends it; a key-path spend is read by what we
    /// co-signed (`keyPathSpendInput`).
    private func spendInput(_ watched: WatchedTransaction, spending outpoint: OutPoint,
                            swap: ProviderSwapRecord) -> ProviderSwapInput? {
        guard let input = watched.transaction.inputs.first(where: { $0.previousOutput == outpoint }) else { return nil }
        // One signature for the aggregate key: only a claim we co-signed can be that.
        if KeyPathSpend.isKeyPath(input.witness, contract: swap.contract) { return keyPathSpendInput(watched, swap: swap) }
        switch PreimageExtractor.spend(input.witness, contract: swap.contract) {
        case .claim(let preimage):
            log("provider swap \(swap.swapID): claim \(watched.txid) seen (\(watched.confirmations) confirmations)")
            return .claimSeen(preimage: preimage, confirmations: watched.confirmations, txid: watched.txid)
        case .refund:
            let status: ProviderRefundStatus = watched.confirmations > 0 ? .confirmed(watched.confirmations) : .unconfirmed
            let seen = states[swap.swapID]?.lock.flatMap { ProviderRefund(spending: $0, by: watched.transaction) }
            return .refundStatus(status, atBlock: false, seen: seen)
        case .unreadableClaim:
            return .unreadableSpend(txid: watched.txid, confirmations: watched.confirmations)
        }
    }
}
