import Bitcoin
import HTLC
import Offers
import Transport

extension ClientEngine {
    /// Watches a swap's contract on chain (the lock, if the push is missed) and keeps the
    /// provider's status stream open.
    func watch(_ run: ClientSwapRun) async {
        guard let contract = run.contract else { return }
        let id = await followerWatch()
        var filter = WatchFilter(scripts: [contract.scriptPubKey])
        if let lock = run.state.verifiedLock { filter.outpoints.insert(lock.outPoint) }
        await follower.watch(filter, for: id)
        await link(for: run.terms.provider).keepOpen()
    }

    /// Watches the lock's spend (the claim, and its confirmations).
    func watchLockSpend(_ lock: LockOutput) async {
        let id = await followerWatch()
        await follower.watch(WatchFilter(outpoints: [lock.outPoint]), for: id)
    }

    /// The engine's one registration with the follower, made on first use.
    private func followerWatch() async -> UInt64 {
        if let watchID { return watchID }
        // Blocks up to the tip now are no news to the swaps (each reads the chain when it
        // starts or resumes), even when a rescan reports them again.
        newBlocks = NewBlockFilter(newestHeight: try? await chain.tip().height)
        let watch = await follower.register(confirmationDepth: max(6, configuration.completionConfirmations))
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
                if let contract = run.contract,
                   watched.received.contains(where: { $0.output.scriptPubKey == contract.scriptPubKey }) {
                    chainSighting(watched.transaction, confirmations: watched.confirmations, contract: contract, of: run)
                }
                // The lock's spender: any claim version of ours (an earlier one may win), or
                // another transaction (the provider's refund), which the machine weighs by depth.
                if let lock = run.state.verifiedLock, watched.spent.contains(where: { $0.outpoint == lock.outPoint }) {
                    if run.state.claimVersions.contains(watched.txid) {
                        feed(run.id, .claimVersionConfirmations(watched.txid, watched.confirmations))
                    } else if !run.state.isOwnClaim(watched.transaction, preimage: run.secrets.preimage) {
                        feed(run.id, .lockSpentElsewhere(watched.txid, confirmations: watched.confirmations))
                    }
                }
            }
        case .blockDisconnected(let tip):
            newBlocks.disconnected(tip)
        case .transactionLeftMempool:
            // Confirmations are re-read at the next block (`checkChain`).
            break
        }
    }

    /// A transaction on chain paying the contract: a lock sighting only when one of its
    /// outputs verifies. Anyone can pay the contract's script; a dust payment or a decoy
    /// in another transaction must not fail the swap (audit L-3), so it is noted and
    /// ignored. The output named is the one that verifies.
    private func chainSighting(_ transaction: Transaction, confirmations: Int, contract: SwapContract, of run: ClientSwapRun) {
        guard let expected = run.accept?.body.amountSat else { return }
        do {
            let lock = try LockVerifier.findLock(in: transaction, contract: contract, expectedAmount: expected)
            feed(run.id, .lockSeen(ClientLockSighting(transaction: transaction, outputIndex: Int(lock.outPoint.index),
                                                      confirmations: confirmations, source: .chain)))
        } catch {
            note(run.id, "ignoring transaction \(transaction.txid.hex) paying the contract: \(error)")
        }
    }

    // MARK: the provider's pushes

    /// A push from provider `pubky`: status updates (with the raw lock) and nothing else.
    func received(push bytes: [UInt8], from pubky: Pubky) async {
        guard case .swapStatusUpdate(let update)? = try? SwapMessage(bytes: bytes),
              let run = runs.values.first(where: { $0.terms.provider.pubky == pubky && $0.providerSwapID == update.swapID })
        else { return }
        if let last = run.lastStatusSequence, update.sequence <= last { return }
        run.lastStatusSequence = update.sequence
        note(run.id, "provider status \(update.status.rawValue)")
        if let hex = update.lockTransactionHex {
            guard let transaction = try? Transaction(hex: hex) else {
                note(run.id, "the provider's lock_tx does not decode; waiting for the chain")
                return
            }
            feed(run.id, .lockSeen(ClientLockSighting(transaction: transaction, outputIndex: update.lock.map { Int($0.vout) },
                                                      confirmations: 0, source: .push)))
            // The chain may already know it deeper than the push says.
            if let found = try? await chain.transaction(transaction.txid), found.confirmations > 0 {
                feed(run.id, .lockSeen(ClientLockSighting(transaction: transaction,
                                                          outputIndex: update.lock.map { Int($0.vout) },
                                                          confirmations: found.confirmations, source: .chain)))
            }
        } else if let lock = update.lock {
            await fetchLock(run, reference: lock)
        }
    }

    /// After a reconnect: ask for the status of every swap still waiting for its lock.
    func reconnected(to pubky: Pubky) async {
        for run in runs.values where run.terms.provider.pubky == pubky && !run.state.phase.claimIsOut
            && run.state.phase.mayHavePaid {
            await lookForLock(run)
        }
    }
}
