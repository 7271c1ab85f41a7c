import Bitcoin

extension Wallet {
    /// Follows the chain to the backend's tip and reads the mempool: undoes blocks whose
    /// hash changed (a reorg), applies new blocks in order from the birthday or the last
    /// block seen, drops unconfirmed transactions the mempool no longer holds (replaced,
    /// evicted, conflicted), and applies new mempool transactions that touch the wallet.
    /// Returns the tip synced to (nil while the chain is below the birthday).
    @discardableResult
    public func sync() async throws(WalletError) -> ChainTip? {
        if let running = runningSync { return try await Self.result(of: running) }
        let task = Task<ChainTip?, any Error> { try await self.followChain() }
        runningSync = task
        defer { runningSync = nil }
        return try await Self.result(of: task)
    }

    private static func result(of task: Task<ChainTip?, any Error>) async throws(WalletError) -> ChainTip? {
        do {
            return try await task.value
        } catch let error as WalletError {
            throw error
        } catch {
            throw WalletError.backend(.malformedResponse("wallet sync failed: \(error)"))
        }
    }

    private func followChain() async throws(WalletError) -> ChainTip? {
        syncsStarted += 1
        let sync = syncsStarted
        // A reorg while blocks are being fetched shows up as a block that does not extend
        // the one before; start again from the rewind, a few times at most.
        for _ in 0..<8 {
            if try await followChainOnce() {
                try await followMempool()
                settleUnansweredBroadcasts(seenBy: sync)
                return state.tip
            }
        }
        throw WalletError.backend(.malformedResponse("the chain kept reorganising during the wallet sync"))
    }

    /// One pass over the blocks; false when the chain changed under it.
    private func followChainOnce() async throws(WalletError) -> Bool {
        let backend = self.backend
        try await tellBackend()
        let tip = try await call { () async throws(ChainBackendError) in try await backend.tip() }
        while let applied = state.tip {
            if applied.height <= tip.height {
                let hash = try await call { () async throws(ChainBackendError) in
                    try await backend.blockHash(atHeight: applied.height)
                }
                if hash == applied.hash { break }
            }
            if !state.undoTip() {
                // Deeper than the undo data kept: start over from the birthday.
                state = WalletState(birthdayHeight: birthdayHeight, undoDepth: configuration.undoDepth)
                seenMempool = []
                break
            }
        }
        while state.nextHeight <= tip.height {
            let height = state.nextHeight
            let hash = try await call { () async throws(ChainBackendError) in try await backend.blockHash(atHeight: height) }
            let block = try await call { () async throws(ChainBackendError) in try await backend.block(hash) }
            guard block.hash == hash else {
                throw WalletError.backend(.malformedResponse("block \(hash) came back with hash \(block.hash)"))
            }
            if let applied = state.tip, block.header.previousBlockHash != applied.hash { return false }
            state.applyBlock(block, hash: hash, height: height, keys: &keys)
        }
        // Keys derived past a newly used one are watched from the next pass, which looks
        // back if one of them was already paid.
        return backendKnowsEveryScript
    }

    /// Names the keys' scripts the backend does not know yet. On Electrum, where blocks
    /// hold only watched scripts' transactions, the server says which of them are used:
    /// they are marked used, which derives the keys past them (the gap limit), and those
    /// are named in turn until none is used (how an Electrum wallet discovers its
    /// addresses). A new script already paid in a block this wallet applied without it
    /// means that block was read incomplete: the wallet applies again from its birthday
    /// (as after a reorg deeper than its undo data).
    private func tellBackend() async throws(WalletError) {
        if backendKnowsEveryScript { return }
        let backend = self.backend
        var lowest: Int?
        var new = keys.watchedScripts.subtracting(toldScripts)
        while !new.isEmpty {
            let named = new
            let summary = try await call { () async throws(ChainBackendError) in try await backend.watch(scripts: named) }
            toldScripts.formUnion(named)
            for script in summary.used { _ = keys.markUsed(script) }
            if let height = summary.lowestConfirmedHeight { lowest = min(lowest ?? height, height) }
            new = keys.watchedScripts.subtracting(toldScripts)
        }
        if let lowest, let applied = state.tip, lowest <= applied.height {
            state = WalletState(birthdayHeight: birthdayHeight, undoDepth: configuration.undoDepth)
            seenMempool = []
        }
    }

    /// Starts the wallet over from `height` when that is below its birthday; true when it
    /// did. After a lost database the birthday (the first run's tip, kept in the database)
    /// is the new database's, and every coin from before it would stay unseen: `recover
    /// --from-height` lowers it. Coins reserved by transactions being broadcast stay
    /// reserved; the next sync reads every block from `height` again.
    public func lowerBirthday(to height: Int) -> Bool {
        guard height >= 0, height < birthdayHeight else { return false }
        birthdayHeight = height
        state = state.restarted(fromHeight: height)
        seenMempool = []
        return true
    }

    private func followMempool() async throws(WalletError) {
        let backend = self.backend
        // Only transactions pending before the listing may be judged by it: one broadcast
        // while the listing is in flight is in the mempool but not in the list.
        let pendingBefore = Set(state.pending.keys)
        let listed = try await call { () async throws(ChainBackendError) in try await backend.mempoolTransactionIDs() }
        let inMempool = Set(listed)
        // A block found after the chain pass takes its transactions out of the mempool before
        // this wallet has applied it: judged by this listing, a pending transaction that block
        // mined would be dropped and the coins it spends offered again (the next lock would
        // spend them twice and be refused). Nothing is dropped then; the next sync applies
        // the block.
        let tip = try await call { () async throws(ChainBackendError) in try await backend.tip() }
        if tip.hash == state.tip?.hash {
            for txid in pendingBefore where !inMempool.contains(txid) { state.dropPending(txid) }
        }

        // Each new one is fetched as bytes (`getrawtransaction <txid> false`), not as Core's
        // verbose object: every wallet fetches every new mempool transaction once. The bytes
        // do not say whether a block mined it since the listing; such a transaction is held
        // as unconfirmed, and the block, when the next sync applies it, confirms it. They
        // are fetched together: on Core, one JSON-RPC batch per 16 of them.
        let wanted = listed.filter { !seenMempool.contains($0) && state.pending[$0] == nil && state.confirmed[$0] == nil }
        let fetched = try await call { () async throws(ChainBackendError) in try await backend.mempoolTransactions(wanted) }
        var fresh = wanted.compactMap { fetched[$0] }
        // Children may be listed before their parents: apply until nothing more touches us.
        var progress = true
        while progress {
            progress = false
            var unrelated: [Transaction] = []
            for transaction in fresh {
                if state.applyMempoolTransaction(transaction, keys: &keys) { progress = true } else { unrelated.append(transaction) }
            }
            fresh = unrelated
        }
        seenMempool = inMempool
    }
}
