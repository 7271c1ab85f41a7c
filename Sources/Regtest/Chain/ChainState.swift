import Bitcoin

/// Every block the hub has made, valid or invalidated, on any branch.
struct BlockRecord {
    let block: Block
    let height: Int
    /// Arrival order: among equal-work branches, the one seen first stays active (Core's rule).
    let sequence: Int
    var isInvalidated = false
}

/// The chain's whole state, used under `RegtestChain`'s lock: the kernel's chainstate, the
/// hub's mirror of the active chain (UTXO set, undo data, transaction index), every known
/// block, and the mempool. After every kernel call the mirror is moved to the kernel's
/// active chain by `followKernel()`, so the kernel decides which chain is active.
struct ChainState {
    var kernel: KernelChainstate
    let verifier: KernelVerifier
    let policy: MempoolPolicy
    let clock: @Sendable () -> Int64

    var records: [BlockHash: BlockRecord] = [:]
    var children: [BlockHash: [BlockHash]] = [:]
    /// Active chain hashes by height.
    var active: [BlockHash] = []
    /// Median time past of each active block, by height.
    var medianTimes: [Int64] = []
    var undo: [BlockHash: BlockUndo] = [:]
    /// Txid -> active block holding it (the genesis coinbase excluded, as Core does).
    var transactionIndex: [TransactionID: BlockHash] = [:]
    /// Outpoint -> the active-chain transaction that spent it: Core's `-txospenderindex`,
    /// which `gettxspendingprevout` with `mempool_only=false` reads (ElectrumX relies on
    /// it). Moved with the active chain, so a reorg unspends what it disconnects.
    var spenderIndex: [OutPoint: TransactionID] = [:]
    var utxos = UTXOSet()
    var mempool = Mempool()
    var feeEstimate = FeeEstimate.noData
    /// Mempool transactions kept out of blocks until released (`hub_hold_transaction`).
    var held = Set<TransactionID>()
    /// Core's `-blockmaxweight` for the blocks the hub mines (`hub_setblockmaxweight`).
    var blockMaxWeight = RegtestParameters.maxBlockWeight
    /// The raised mempool minimum (sat/kvB, `hub_setmempoolminfee`); 0: only the relay floor.
    var mempoolMinFeeRate: Int64 = 0
    var nextSequence = 0

    init(libraryPath: String?, policy: MempoolPolicy, clock: @escaping @Sendable () -> Int64) throws {
        do {
            verifier = try KernelVerifier(libraryPath: libraryPath)
            kernel = try KernelChainstate(libraryPath: verifier.libraryPath)
        } catch {
            throw ChainError.kernel("\(error)")
        }
        self.policy = policy
        self.clock = clock
        let genesis = RegtestParameters.genesisBlock
        guard try kernelCall({ try kernel.tipHash }) == genesis.hash else {
            throw ChainError.viewDiverged("the kernel's regtest genesis is not \(genesis.hash)")
        }
        record(genesis, height: 0)
        // Core never connects the genesis coinbase: its output is not spendable and its txid not indexed.
        active = [genesis.hash]
        medianTimes = [Int64(genesis.header.time)]
    }

    var height: Int { active.count - 1 }
    var tipHash: BlockHash { active[height] }

    // MARK: blocks

    mutating func record(_ block: Block, height: Int) {
        let hash = block.hash
        guard records[hash] == nil else { return }
        var invalid = false
        if let parent = records[block.header.previousBlockHash] { invalid = parent.isInvalidated }
        records[hash] = BlockRecord(block: block, height: height, sequence: nextSequence, isInvalidated: invalid)
        nextSequence += 1
        if height > 0 { children[block.header.previousBlockHash, default: []].append(hash) }
    }

    /// Median of the times of `hash` and up to 10 predecessors.
    func medianTimePast(of hash: BlockHash) -> Int64 {
        var times: [UInt32] = []
        var cursor: BlockHash? = hash
        while let current = cursor, let record = records[current], times.count < 11 {
            times.append(record.block.header.time)
            cursor = record.height > 0 ? record.block.header.previousBlockHash : nil
        }
        times.sort()
        return Int64(times[times.count / 2])
    }

    func descendants(of hash: BlockHash) -> [BlockHash] {
        var found: [BlockHash] = []
        var queue = children[hash] ?? []
        while let next = queue.popLast() {
            found.append(next)
            queue.append(contentsOf: children[next] ?? [])
        }
        return found
    }

    func isActive(_ hash: BlockHash) -> Bool {
        guard let record = records[hash], record.height < active.count else { return false }
        return active[record.height] == hash
    }

    // MARK: mining

    mutating func mine(_ count: Int, to payout: Script) throws -> [BlockHash] {
        guard count >= 0 else { throw ChainError.invalidRequest("cannot mine a negative number of blocks") }
        var mined: [BlockHash] = []
        for _ in 0..<count {
            var assembler = BlockAssembler(previous: tipHash, height: height + 1, medianTimePast: medianTimes[height],
                                           now: clock(), payout: payout)
            assembler.maxWeight = blockMaxWeight
            let block = assembler.assemble(from: mempool, held: held) { records[$0] != nil }
            record(block, height: height + 1)
            try submitToKernel(block, height: height + 1, expectConnected: true)
            try followKernel()
            mined.append(block.hash)
        }
        return mined
    }

    /// Hands a block to the kernel. Any rejection is a hub bug and is thrown with Core's reason.
    func submitToKernel(_ block: Block, height: Int, expectConnected: Bool) throws {
        let verdict = try kernelCall { try kernel.process(block) }
        switch verdict {
        case .connected: return
        case .notConnected:
            if expectConnected {
                throw ChainError.viewDiverged("the kernel stored block \(block.hash) at height \(height) but did not connect it")
            }
        case .rejected(let hash, _, let reason):
            throw ChainError.kernelRejectedBlock(hash: hash, height: records[hash]?.height ?? height, reason: reason)
        }
    }

    /// Moves the hub's mirror to the kernel's active chain: disconnects the hub's blocks
    /// above the fork point, connects the kernel's, and updates the mempool. After a reorg
    /// the mempool is rebuilt from the disconnected blocks' transactions (oldest first) and
    /// the previous mempool, each re-judged against the new tip; what no longer fits is dropped.
    mutating func followKernel() throws {
        let kernelHeight = try kernelCall { try kernel.height }
        var fork = min(height, kernelHeight)
        while fork > 0, try kernelCall({ try kernel.blockHash(atHeight: fork) }) != active[fork] { fork -= 1 }

        var disconnected: [Block] = []
        while height > fork {
            let hash = active.removeLast()
            medianTimes.removeLast()
            let block = records[hash]!.block
            if let blockUndo = undo.removeValue(forKey: hash) { utxos.disconnect(block, undo: blockUndo) }
            for transaction in block.transactions where transactionIndex[transaction.txid] == hash {
                transactionIndex.removeValue(forKey: transaction.txid)
            }
            for transaction in block.transactions where !transaction.isCoinbase {
                for input in transaction.inputs where spenderIndex[input.previousOutput] == transaction.txid {
                    spenderIndex.removeValue(forKey: input.previousOutput)
                }
            }
            disconnected.insert(block, at: 0)
        }
        if fork < kernelHeight {
            for h in (fork + 1)...kernelHeight {
                guard let hash = try kernelCall({ try kernel.blockHash(atHeight: h) }), let block = records[hash]?.block else {
                    throw ChainError.viewDiverged("the kernel's block at height \(h) is not one the hub made")
                }
                undo[hash] = try utxos.connect(block, height: h)
                active.append(hash)
                medianTimes.append(medianTimePast(of: hash))
                for transaction in block.transactions {
                    transactionIndex[transaction.txid] = hash
                    guard !transaction.isCoinbase else { continue }
                    for input in transaction.inputs { spenderIndex[input.previousOutput] = transaction.txid }
                }
                if disconnected.isEmpty { mempool.removeForBlock(block) }
            }
        }
        if !disconnected.isEmpty {
            let returning = disconnected.flatMap { $0.transactions.filter { !$0.isCoinbase } }
            let previous = mempool.removeAll().map(\.transaction)
            for transaction in returning + previous {
                _ = try? accept(transaction, maxFeeRate: 0, testOnly: false)
            }
        }
        guard try kernelCall({ try kernel.tipHash }) == tipHash else {
            throw ChainError.viewDiverged("after following the kernel the tips differ")
        }
    }

    // MARK: transactions

    /// Runs mempool acceptance; unless `testOnly`, evicts what the transaction replaces and adds it.
    mutating func accept(_ transaction: Transaction, maxFeeRate: Int64, testOnly: Bool,
                         checksFeeFloors: Bool = true) throws -> MempoolEntry {
        var acceptance = MempoolAcceptance(utxos: utxos, mempool: mempool, tipHeight: height, medianTimes: medianTimes,
                                           policy: policy, verifier: verifier, now: clock())
        acceptance.mempoolMinFeeRate = mempoolMinFeeRate
        acceptance.checksFeeFloors = checksFeeFloors
        let accepted = try acceptance.check(transaction, maxFeeRate: maxFeeRate)
        if !testOnly {
            for txid in accepted.replaced { mempool.removeWithDescendants(txid) }
            mempool.add(accepted.entry)
        }
        return accepted.entry
    }

    // MARK: invalidation

    /// Core's `invalidateblock`: marks the block and its descendants invalid and makes the
    /// best remaining chain active. The kernel has no invalidation call, so when an active
    /// block is invalidated the hub starts a fresh kernel chainstate (in-memory, so this is
    /// cheap on regtest) and replays every block not marked invalid: first the active chain
    /// below the invalidated block, then the other branches by height. The kernel picks the
    /// most-work chain among them; the mirror follows it.
    mutating func invalidate(_ hash: BlockHash) throws {
        guard let target = records[hash] else { throw ChainError.unknownBlock(hash) }
        guard target.height > 0 else { throw ChainError.invalidRequest("the genesis block cannot be invalidated") }
        let wasActive = isActive(hash)
        for marked in [hash] + descendants(of: hash) { records[marked]?.isInvalidated = true }
        guard wasActive else { return }
        try rebuildKernel(keeping: Array(active[1..<target.height]))
    }

    /// Core's `reconsiderblock`: clears the invalid mark of the block, its ancestors and
    /// descendants, hands them to the kernel, and follows the kernel to the most-work chain.
    mutating func reconsider(_ hash: BlockHash) throws {
        guard let target = records[hash] else { throw ChainError.unknownBlock(hash) }
        var cleared = [hash] + descendants(of: hash)
        var cursor = target
        while cursor.height > 0, let parent = records[cursor.block.header.previousBlockHash] {
            cleared.append(cursor.block.header.previousBlockHash)
            cursor = parent
        }
        for marked in cleared { records[marked]?.isInvalidated = false }
        let replay = cleared.compactMap { h in records[h].map { (h, $0) } }
            .filter { $0.1.height > 0 }
            .sorted { ($0.1.height, $0.1.sequence) < ($1.1.height, $1.1.sequence) }
        for (_, record) in replay { try submitToKernel(record.block, height: record.height, expectConnected: false) }
        try followKernel()
    }

    private mutating func rebuildKernel(keeping prefix: [BlockHash]) throws {
        let fresh: KernelChainstate
        do { fresh = try KernelChainstate(libraryPath: verifier.libraryPath) } catch { throw ChainError.kernel("\(error)") }
        let old = kernel
        kernel = fresh
        old.close()
        let prefixSet = Set(prefix)
        let others = records.filter { !$0.value.isInvalidated && $0.value.height > 0 && !prefixSet.contains($0.key) }
            .sorted { ($0.value.height, $0.value.sequence) < ($1.value.height, $1.value.sequence) }
        for hash in prefix { try submitToKernel(records[hash]!.block, height: records[hash]!.height, expectConnected: false) }
        for (_, record) in others { try submitToKernel(record.block, height: record.height, expectConnected: false) }
        try followKernel()
    }

    /// Kernel calls fail only when the library misbehaves; they surface as `ChainError.kernel`.
    private func kernelCall<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as ChainError { throw error } catch { throw ChainError.kernel("\(error)") }
    }
}
