import Bitcoin
import Transport

/// Follows a chain backend by polling: new blocks in height order, reorgs rewound to the
/// fork point (disconnected blocks reported tip first), and every transaction that pays a
/// watched script or spends a watched outpoint, in the mempool and in blocks, with its
/// confirmations.
///
/// Watchers register filters and read `ChainEvent`s from their own `AsyncStream`. The
/// reorg decisions are `ChainView`'s; this actor only performs the calls they ask for.
/// Rounds never overlap: `poll()` called during a round waits for it and runs after.
public actor ChainFollower {
    public let backend: any ChainBackend
    public let configuration: Configuration
    private let sleeper: any Sleeper

    private struct Watcher {
        var filter: WatchFilter
        let confirmationDepth: Int
        let continuation: AsyncStream<ChainEvent>.Continuation
    }

    /// A watched transaction the follower keeps reporting on until it is deep enough.
    private struct Tracked {
        let transaction: Transaction
        var block: ChainTip?
    }

    private var view: ChainView?
    private var startHeight: Int?
    private var watchers: [UInt64: Watcher] = [:]
    private var nextWatcherID: UInt64 = 1
    private var tracked: [TransactionID: Tracked] = [:]
    /// Mempool txids already examined, so each is fetched once while it stays there.
    private var mempoolSeen: Set<TransactionID> = []
    /// The transactions behind `mempoolSeen` (up to `mempoolCacheLimit`), so a rescan
    /// matches them against the new filters without fetching them again (audit L-6).
    private var mempoolCache: [TransactionID: Transaction] = [:]
    /// Set by `rescan`: the next mempool round examines every transaction again.
    private var mempoolRecheck = false
    private var polling = false
    /// Scripts and outpoints registered since the backend was last told (`ChainBackend.watch`):
    /// an Electrum backend shows only what it was told about, so it hears before a round reads.
    private var untold = WatchFilter()
    private var pollWaiters: [CheckedContinuation<Void, Never>] = []

    /// The last round's failure, nil after a good round (for status displays).
    public private(set) var lastError: ChainFollowerError?

    public init(backend: any ChainBackend, sleeper: any Sleeper, configuration: Configuration = Configuration()) {
        self.backend = backend
        self.sleeper = sleeper
        self.configuration = configuration
        self.startHeight = configuration.startHeight
    }

    // MARK: watchers

    /// A registration: its id (to add to or end it) and its events.
    public struct Watch: Sendable {
        public let id: UInt64
        public let events: AsyncStream<ChainEvent>
    }

    /// Registers a watcher. Transactions are reported with updated confirmations until
    /// they reach `confirmationDepth`.
    public func register(_ filter: WatchFilter = WatchFilter(), confirmationDepth: Int = 6) -> Watch {
        let id = nextWatcherID
        nextWatcherID += 1
        let (events, continuation) = AsyncStream<ChainEvent>.makeStream()
        watchers[id] = Watcher(filter: filter, confirmationDepth: max(confirmationDepth, 1), continuation: continuation)
        untold.formUnion(filter)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unregister(id) }
        }
        return Watch(id: id, events: events)
    }

    /// Adds scripts and outpoints to a watcher. Only blocks and mempool transactions seen
    /// from now on are matched; `rescan(fromHeight:)` looks back.
    public func watch(_ filter: WatchFilter, for id: UInt64) {
        guard watchers[id] != nil else { return }
        watchers[id]?.filter.formUnion(filter)
        untold.formUnion(filter)
    }

    /// Ends a watcher and its stream.
    public func unregister(_ id: UInt64) {
        watchers.removeValue(forKey: id)?.continuation.finish()
    }

    /// Ends every watcher's stream (at shutdown).
    public func finish() {
        for id in Array(watchers.keys) { unregister(id) }
    }

    /// The last block processed.
    public var tip: ChainTip? { view?.tip }

    // MARK: running

    /// Polls until cancelled. A failed round is kept in `lastError` and retried after the
    /// interval; the follower's state is unchanged by a failure.
    public func run() async {
        while !Task.isCancelled {
            do {
                try await poll()
            } catch {
                // Recorded by poll(); the next round retries.
            }
            do { try await sleeper.sleep(milliseconds: configuration.pollIntervalMilliseconds) } catch { return }
        }
    }

    /// One round: follow the tip (reorgs first, then new blocks), then the mempool.
    public func poll() async throws(ChainFollowerError) {
        while polling { await withCheckedContinuation { pollWaiters.append($0) } }
        polling = true
        defer {
            polling = false
            if !pollWaiters.isEmpty { pollWaiters.removeFirst().resume() }
        }
        do {
            try await tellBackend()
            try await followBlocks()
            if configuration.followsMempool { try await followMempool() }
            lastError = nil
        } catch {
            lastError = error
            throw error
        }
    }

    /// Scans again from `height` (a wallet's birthday, or below a newly watched script's
    /// first use) at the next round. Blocks already reported are reported again.
    public func rescan(fromHeight height: Int) {
        startHeight = max(height, 0)
        view = nil
        mempoolRecheck = true
    }

    /// Names the newly watched scripts and outpoints to the backend; on failure they stay
    /// untold and the round fails (and is retried), so no block is read without them.
    private func tellBackend() async throws(ChainFollowerError) {
        guard !untold.isEmpty else { return }
        let telling = untold
        untold = WatchFilter()
        do {
            if !telling.scripts.isEmpty { _ = try await backend.watch(scripts: telling.scripts) }
            if !telling.outpoints.isEmpty { try await backend.watch(outpoints: telling.outpoints) }
        } catch {
            untold.formUnion(telling)
            throw .backend(error)
        }
    }

    // MARK: blocks

    private func followBlocks() async throws(ChainFollowerError) {
        let remote = try await call(await backend.tip())
        if view == nil { view = try await makeView(remoteTip: remote) }
        guard var search = view?.forkSearch(toward: remote), view?.tip?.hash != remote.hash else { return }
        while case .compare(let height) = search.step {
            search.feed(try await call(await backend.blockHash(atHeight: height)))
        }
        switch search.step {
        case .compare: return
        case .beyondWindow: throw .forkBeyondWindow(window: configuration.window)
        case .found(let forkHeight):
            for disconnected in view?.rewind(toHeight: forkHeight) ?? [] { disconnect(disconnected) }
        }
        while let next = view?.nextHeight, next <= remote.height {
            let hash = next == remote.height
                ? remote.hash
                : try await call(await backend.blockHash(atHeight: next))
            let block = try await call(await backend.block(hash))
            // A block that does not build on ours means the chain changed during the walk;
            // the next round's fork search sorts it out.
            guard view?.connect(hash, previous: block.header.previousBlockHash) == true else { return }
            connect(block, at: ChainTip(height: next, hash: hash))
        }
    }

    /// The view a first round starts from: at the start height (clamped to just above the
    /// tip), with its parent's hash to check the first block against.
    private func makeView(remoteTip remote: ChainTip) async throws(ChainFollowerError) -> ChainView {
        let start = min(startHeight ?? remote.height + 1, remote.height + 1)
        let parentHeight = start - 1
        var parent: BlockHash?
        if parentHeight == remote.height {
            parent = remote.hash
        } else if parentHeight >= 0 {
            parent = try await call(await backend.blockHash(atHeight: parentHeight))
        }
        return ChainView(nextHeight: start, parent: parent, window: configuration.window)
    }

    private func connect(_ block: Block, at tip: ChainTip) {
        broadcast(.blockConnected(tip))
        var reportedNow: Set<TransactionID> = []
        for transaction in block.transactions {
            let txid = transaction.txid
            if report(transaction, txid: txid, block: tip, confirmations: 1) {
                tracked[txid] = Tracked(transaction: transaction, block: tip)
                reportedNow.insert(txid)
            }
        }
        // Deeper confirmations of earlier transactions, while a watcher still wants them.
        for (txid, entry) in tracked where !reportedNow.contains(txid) {
            guard let block = entry.block else { continue }
            let confirmations = tip.height - block.height + 1
            if confirmations > configuration.window {
                // Below the reorg window it can no longer change.
                tracked.removeValue(forKey: txid)
                continue
            }
            report(entry.transaction, txid: txid, block: block, confirmations: confirmations, upToDepth: true)
        }
    }

    private func disconnect(_ tip: ChainTip) {
        broadcast(.blockDisconnected(tip))
        for (txid, entry) in tracked where entry.block == tip {
            tracked[txid]?.block = nil
            // It may be back in the mempool; let the mempool round look at it again.
            mempoolSeen.remove(txid)
            mempoolCache[txid] = nil
            report(entry.transaction, txid: txid, block: nil, confirmations: 0)
        }
    }

    // MARK: mempool

    private func followMempool() async throws(ChainFollowerError) {
        let txids = try await call(await backend.mempoolTransactionIDs())
        let current = Set(txids)
        var fresh: [Transaction] = []
        if mempoolRecheck {
            // A rescan: filters may have grown, so what was seen is matched again, from the
            // cache; only what the cache does not hold is fetched again.
            mempoolRecheck = false
            for txid in txids where mempoolSeen.contains(txid) && tracked[txid] == nil {
                if let cached = mempoolCache[txid] { fresh.append(cached) } else { mempoolSeen.remove(txid) }
            }
        }
        var wanted: [TransactionID] = []
        for txid in txids where !mempoolSeen.contains(txid) {
            if tracked[txid] != nil { mempoolSeen.insert(txid) } else { wanted.append(txid) }
        }
        // Fetched together, and marked as examined only once all of them are here: a round
        // whose fetch fails leaves them all to the next round. One gone since the list was
        // taken (mined out of the backend's reach, or replaced) is not there: nothing to
        // report. One mined since is reported unconfirmed, then in its block.
        let fetched = try await call(await backend.mempoolTransactions(wanted))
        for txid in wanted {
            guard let found = fetched[txid] else { continue }
            mempoolSeen.insert(txid)
            fresh.append(found)
            if mempoolCache.count < configuration.mempoolCacheLimit { mempoolCache[txid] = found }
        }
        reportMempool(fresh)

        for txid in mempoolSeen.subtracting(current) {
            mempoolSeen.remove(txid)
            mempoolCache[txid] = nil
            guard let entry = tracked[txid], entry.block == nil else { continue }
            // Mined since this round's block walk? Then the next walk reports it.
            if let found = try await call(await backend.transaction(txid)), found.confirmations > 0 {
                continue
            }
            tracked.removeValue(forKey: txid)
            broadcast(.transactionLeftMempool(txid), to: watchers(interestedIn: entry.transaction, txid: txid))
        }
    }

    /// Reports new mempool transactions. The mempool list is not in dependency order, so
    /// passes repeat while a pass finds a match: a child spending an output a watcher
    /// just received is matched after its parent.
    private func reportMempool(_ transactions: [Transaction]) {
        var pending = transactions.map { ($0, $0.txid) }
        var progress = true
        while progress && !pending.isEmpty {
            progress = false
            pending.removeAll { transaction, txid in
                guard report(transaction, txid: txid, block: nil, confirmations: 0) else { return false }
                tracked[txid] = Tracked(transaction: transaction, block: nil)
                progress = true
                return true
            }
        }
    }

    // MARK: delivery

    /// Sends the transaction to every watcher it touches; received outputs join their
    /// filters. With `upToDepth`, only watchers still counting confirmations get it.
    @discardableResult
    private func report(_ transaction: Transaction, txid: TransactionID, block: ChainTip?, confirmations: Int,
                        upToDepth: Bool = false) -> Bool {
        var matched = false
        for id in watchers.keys {
            guard let watcher = watchers[id], let match = watcher.filter.match(transaction, txid: txid) else { continue }
            matched = true
            watchers[id]?.filter.absorb(match.received)
            if upToDepth && confirmations > watcher.confirmationDepth { continue }
            watcher.continuation.yield(.transaction(WatchedTransaction(
                transaction: transaction, txid: txid, received: match.received, spent: match.spent,
                block: block, confirmations: confirmations)))
        }
        return matched
    }

    private func watchers(interestedIn transaction: Transaction, txid: TransactionID) -> [UInt64] {
        watchers.compactMap { id, watcher in watcher.filter.match(transaction, txid: txid) == nil ? nil : id }
    }

    private func broadcast(_ event: ChainEvent, to ids: [UInt64]? = nil) {
        for id in ids ?? Array(watchers.keys) { watchers[id]?.continuation.yield(event) }
    }

    /// One backend call, its error wrapped for the follower.
    private func call<T: Sendable>(_ body: @autoclosure () async throws(ChainBackendError) -> T) async throws(ChainFollowerError) -> T {
        do {
            return try await body()
        } catch {
            throw .backend(error)
        }
    }
}
