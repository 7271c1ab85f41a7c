import Bitcoin
import HTLC

extension SubmarineProviderEngine {
    /// Adds a swap's contract script to the chain watch: every payment to it (the client's
    /// lock, or a stranger's) is reported, in the mempool and in blocks.
    func watchScript(_ swap: SubmarineProviderRecord) async {
        let script = swap.contract.scriptPubKey
        guard scripts[script] == nil else { return }
        scripts[script] = swap.swapID
        await addToWatch(WatchFilter(scripts: [script]))
    }

    /// Adds a recorded lock: its txid (to hear it leave the mempool) and its output (to see
    /// the claim or the client's refund spend it).
    func watchLockOutput(_ lock: SubmarineLock, swapID: String) async {
        lockTxids[lock.txid] = swapID
        guard lockOutpoints[lock.output.outPoint] == nil else { return }
        lockOutpoints[lock.output.outPoint] = swapID
        await addToWatch(WatchFilter(outpoints: [lock.output.outPoint]))
    }

    /// Awaited, so the follower's next round (a rescan's included) already matches it.
    private func addToWatch(_ filter: WatchFilter) async {
        guard let watchID else { return }
        await dependencies.follower.watch(filter, for: watchID)
    }

    /// Turns the follower's events into swap inputs.
    func handle(_ event: ChainEvent) {
        switch event {
        case .blockConnected(let tip):
            guard newBlocks.admit(tip) else { return }
            let height = UInt32(clamping: tip.height)
            lastTipHeight = max(lastTipHeight, height)
            let now = dependencies.clock.nowUnix
            for id in states.keys { deliver(.block(height: height, nowUnix: now), to: id) }
            relocateWaitingLocks()
        case .blockDisconnected(let tip):
            newBlocks.disconnected(tip)
            lastTipHeight = UInt32(clamping: max(tip.height - 1, 0))
        case .transaction(let watched):
            var told = Set<String>()
            for received in watched.received {
                guard let id = scripts[received.output.scriptPubKey], !told.contains(id) else { continue }
                told.insert(id)
                deliver(.lockSeen(watched.transaction, confirmations: watched.confirmations), to: id)
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

    /// A spend of the lock: the provider's own claim (any version) or the client's refund,
    /// told apart by the witness of the input that spends it (a key-path spend by what the
    /// provider co-signed: `keyPathSpendInput`).
    private func spendInput(_ watched: WatchedTransaction, spending outpoint: OutPoint,
                            swap: SubmarineProviderRecord) -> SubmarineProviderInput? {
        guard let input = watched.transaction.inputs.first(where: { $0.previousOutput == outpoint }) else { return nil }
        // One signature reveals nothing: what it is comes from what this provider signed.
        if KeyPathSpend.isKeyPath(input.witness, contract: swap.contract) { return keyPathSpendInput(watched, swap: swap) }
        let tip = lastTipHeight
        switch PreimageExtractor.spend(input.witness, contract: swap.contract) {
        case .claim:
            let status: SubmarineClaimStatus = watched.confirmations > 0
                ? .confirmed(watched.confirmations, txid: watched.txid) : .unconfirmed
            return .claimStatus(status, tipHeight: tip)
        case .refund:
            log("submarine swap \(swap.swapID): refund \(watched.txid) of the lock seen (\(watched.confirmations) confirmations)")
            return .lockRefunded(txid: watched.txid, confirmations: watched.confirmations)
        case .unreadableClaim:
            log("submarine swap \(swap.swapID): the lock is spent by \(watched.txid), whose witness is neither a claim nor a refund")
            return nil
        }
    }

    /// A lock still short of its confirmations is looked up at each block: the follower
    /// reports a transaction only up to the watch's depth (6), and an offer may ask more.
    private func relocateWaitingLocks() {
        let waiting = states.compactMap { id, state -> (String, SubmarineLock)? in
            if case .lockSeen(let lock) = state { return (id, lock) }
            return nil
        }
        guard !waiting.isEmpty else { return }
        Task { [weak self] in
            for (id, lock) in waiting {
                guard let self, let input = await self.locate(lock) else { continue }
                await self.deliver(input, to: id)
            }
        }
    }

    /// Where a recorded lock is now: `.lockSeen` with its confirmations, or `.lockMissing`.
    func locate(_ lock: SubmarineLock) async -> SubmarineProviderInput? {
        do {
            if let found = try await dependencies.chain.transaction(lock.txid) {
                return .lockSeen(lock.transaction, confirmations: found.confirmations)
            }
            return .lockMissing
        } catch {
            log("looking up lock \(lock.txid) failed: \(error)")
            return nil
        }
    }
}
