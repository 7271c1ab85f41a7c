import Bitcoin
import HTLC
import Offers

extension SubmarineClientEngine {
    /// Watches a swap's contract script (the lock) and the lock's outpoint (the claim or
    /// the refund, whatever its witness).
    func watch(_ run: SubmarineClientRun) async {
        guard let contract = run.state.contract else { return }
        let id = await followerWatch()
        var filter = WatchFilter(scripts: [contract.scriptPubKey])
        if let lock = run.state.lock { filter.outpoints.insert(lock.outPoint) }
        await follower.watch(filter, for: id)
    }

    /// The engine's one registration with the follower, made on first use.
    private func followerWatch() async -> UInt64 {
        if let watchID { return watchID }
        // Blocks up to the tip now are no news to the swaps (each reads the chain when it
        // starts or resumes), even when a rescan reports them again.
        newBlocks = NewBlockFilter(newestHeight: try? await chain.tip().height)
        let watch = await follower.register(confirmationDepth: max(6, configuration.finalityConfirmations))
        watchID = watch.id
        let events = watch.events
        watchTask = Task { [weak self] in
            for await event in events {
                guard let self else { return }
                await self.handle(event)
            }
        }
        return watch.id
    }

    private func handle(_ event: ChainEvent) {
        switch event {
        case .blockConnected(let tip):
            guard newBlocks.admit(tip) else { return }
            for id in runs.keys { feed(id, .block(height: tip.height)) }
        case .transaction(let watched):
            for run in runs.values {
                guard let lock = run.state.lock else { continue }
                if watched.txid == lock.outPoint.txid { feed(run.id, .lockConfirmations(watched.confirmations)) }
                if watched.spent.contains(where: { $0.outpoint == lock.outPoint }) {
                    // The machine reads the witness: a claim reveals the preimage, a refund is ours.
                    feed(run.id, .lockSpent(watched.transaction, confirmations: watched.confirmations))
                }
            }
        case .blockDisconnected(let tip):
            newBlocks.disconnected(tip)
        case .transactionLeftMempool:
            // Re-read at the next block (`checkChain`).
            break
        }
    }

    /// Reads the lock's confirmations, a final conflict of its funding, the depth of our
    /// refund versions and of a claim seen before, and whether the lock is unspent again.
    func checkChain(_ run: SubmarineClientRun) async {
        let state = run.state
        guard let lock = state.lock else { return }
        let lockConfirmations = await confirmations(of: lock.outPoint.txid) ?? 0
        feed(run.id, .lockConfirmations(lockConfirmations))
        if lockConfirmations == 0, let funding = state.funding, let tip = try? await chain.tip() {
            for input in funding.inputs {
                if let spender = await wallet.confirmedSpender(of: input.previousOutput), spender.txid != funding.txid {
                    feed(run.id, .fundingConflicted(confirmations: tip.height - spender.height + 1))
                    break
                }
            }
        }
        for txid in state.refundTxids.reversed() {
            if let count = await confirmations(of: txid) {
                feed(run.id, .refundConfirmations(txid, count))
                break
            }
        }
        if let claim = state.claimTxid, let found = try? await chain.transaction(claim) {
            feed(run.id, .lockSpent(found.transaction, confirmations: found.confirmations))
        }
        if lockConfirmations > 0 || state.claimTxid != nil || state.refundConfirmations > 0,
           (try? await chain.unspentOutput(lock.outPoint, includeMempool: true)) != nil {
            // Neither the chain nor the mempool spends it (a reorg, an eviction).
            feed(run.id, .lockUnspent)
        }
    }

    /// Feeds the lock's depth as the chain has it now and returns once the machine took it:
    /// for a step that follows from a confirmed lock and may come before the follower has
    /// polled the block (the provider's cooperative claim).
    func catchUpLockDepth(_ run: SubmarineClientRun) async {
        guard let lock = run.state.lock, let count = await confirmations(of: lock.outPoint.txid) else { return }
        await feedAndWait(.lockConfirmations(count), to: run)
    }

    /// A transaction's confirmations: the chain backend's, else the wallet's own record
    /// (a node without a transaction index still knows the wallet's funding and refunds);
    /// nil when neither knows it.
    private func confirmations(of txid: TransactionID) async -> Int? {
        if let found = try? await chain.transaction(txid) { return found.confirmations }
        guard let known = await wallet.transaction(txid) else { return nil }
        guard let height = known.height, let tip = try? await chain.tip() else { return 0 }
        return max(0, tip.height - height + 1)
    }
}
