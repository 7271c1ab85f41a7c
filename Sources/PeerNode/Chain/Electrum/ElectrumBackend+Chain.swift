import Bitcoin
import HTLC
import Transport

extension ElectrumBackend {
    public func tip() async throws(ChainBackendError) -> ChainTip {
        let tip = try await currentTip()
        return ChainTip(height: tip.height, hash: tip.header.hash)
    }

    public func blockHash(atHeight height: Int) async throws(ChainBackendError) -> BlockHash {
        try await header(atHeight: height).hash
    }

    /// The header at `height` in the server's best chain, remembered by hash; for a server
    /// the operator does not run, one linked to LND's best block, at or below the tip.
    func header(atHeight height: Int) async throws(ChainBackendError) -> BlockHeader {
        try await header(atHeight: height, tip: try await currentTip())
    }

    /// `header(atHeight:)` against a tip the caller has already read.
    private func header(atHeight height: Int, tip: (height: Int, header: BlockHeader)) async throws(ChainBackendError)
        -> BlockHeader {
        let header: BlockHeader
        if height == tip.height {
            header = tip.header
        } else if checksHeadersAgainstReference {
            header = try await anchoredHeader(atHeight: height, below: tip)
        } else {
            let bytes = try await withClient { client throws(ElectrumError) in try await client.blockHeader(height: height) }
            do { header = try Self.header(bytes) } catch { throw map(error) }
        }
        remember(header, height: height)
        return header
    }

    /// The block's header with only the watched scripts' transactions, in block order.
    /// Each is placed by a merkle proof to the header's merkle root; a proof that does not
    /// lead there (the server's chain moved, or it lies) fails the call, and the caller's
    /// next round asks again.
    public func block(_ hash: BlockHash) async throws(ChainBackendError) -> Block {
        guard let known = knownHeader(hash) else {
            throw .malformedResponse("block \(hash) was not looked up by height first (an Electrum server serves headers by height)")
        }
        try await refreshHistories()
        let txids = Array(book.transactions(atHeight: known.height))
        var placed: [(position: Int, transaction: Transaction)] = []
        for txid in txids {
            let transaction = try await fetch(txid)
            let proof = try await withClient { client throws(ElectrumError) in
                try await client.merkleProof(txid, height: known.height)
            }
            guard proof.proves(txid, in: known.header) else {
                throw .malformedResponse("the Electrum server places \(txid) in block \(known.height) (\(hash)), but its merkle "
                    + "proof does not lead to that block's merkle root (its chain moved, or it is lying)")
            }
            placed.append((proof.position, transaction))
        }
        return Block(header: known.header, transactions: placed.sorted { $0.position < $1.position }.map(\.transaction))
    }

    /// From the server: the transaction, then where its first output's script history
    /// puts it. A confirmation is believed only with a merkle proof to the header at its
    /// height; a transaction the index has not listed yet counts as unconfirmed.
    public func transaction(_ txid: TransactionID) async throws(ChainBackendError) -> ChainTransaction? {
        let transaction: Transaction
        do {
            transaction = try await fetch(txid)
        } catch .rpc {
            // The server's daemon does not know it: unknown is an answer, as Core's -5.
            return nil
        }
        guard let height = try await confirmedHeight(of: transaction) else {
            return ChainTransaction(transaction: transaction, blockHash: nil, confirmations: 0)
        }
        let (hash, confirmations) = try await provenConfirmation(txid, height: height)
        return ChainTransaction(transaction: transaction, blockHash: hash, confirmations: confirmations)
    }

    /// Through the server's daemon. A refusal is `.rejected` with the server's message
    /// (ElectrumX passes the daemon's reason on, e.g. `bad-txns-inputs-missingorspent`).
    /// With a second way out (`broadcastAlsoThrough`), through it as well, whatever the
    /// server answered: a server's "sent" proves nothing. Published by either is published;
    /// refused by both, LND's refusal is a real node's word and is the one thrown, unless it
    /// gave none (then the server's).
    public func broadcast(_ transaction: Transaction) async throws(ChainBackendError) -> TransactionID {
        var refusal: ChainBackendError?
        do {
            try await withClient { client throws(ElectrumError) in try await client.broadcast(transaction) }
        } catch {
            refusal = error
        }
        if let secondBroadcast {
            let second = await secondBroadcast(transaction)
            if second == nil {
                refusal = nil
            } else if refusal != nil, case .rejected? = second {
                refusal = second
            }
        }
        if let refusal { throw refusal }
        cache(transaction)
        // Listed as in the mempool from now on, as Core's sendrawtransaction leaves it: the
        // server's index may not have it yet, and a wallet judging its pending spends by a
        // listing without it would offer the coins again (a lock spending them twice).
        book.recordBroadcast(transaction, at: millisecondsSinceStart)
        // The scripts it pays or spends have news; their notifications may lag the index.
        for output in transaction.outputs { book.markStale(ElectrumScriptHash(scriptPubKey: output.scriptPubKey.bytes)) }
        return transaction.txid
    }

    /// Electrum has no `testmempoolaccept`: refused, so no caller mistakes silence for a pass.
    public func testAccept(_ transaction: Transaction) async throws(ChainBackendError) -> MempoolAcceptance {
        throw .rpc(code: -32601, message: "an Electrum server cannot test a transaction against the mempool without relaying it")
    }

    /// The watched scripts' mempool transactions: all the follower and the wallet match;
    /// with this node's own broadcasts the server has not indexed yet.
    public func mempoolTransactionIDs() async throws(ChainBackendError) -> [TransactionID] {
        try await refreshHistories()
        return Array(book.mempool(at: millisecondsSinceStart))
    }

    /// gettxout from `listunspent` of the output's script (which leaves out outputs spent
    /// in the mempool, as gettxout with the mempool does); without the mempool, an output
    /// confirmed and spent by no confirmed transaction of that script's history.
    public func unspentOutput(_ outpoint: OutPoint, includeMempool: Bool) async throws(ChainBackendError) -> UnspentOutputInfo? {
        let funding: Transaction
        do { funding = try await fetch(outpoint.txid) } catch .rpc { return nil }
        guard Int(outpoint.index) < funding.outputs.count else { return nil }
        let output = funding.outputs[Int(outpoint.index)]
        let scriptHash = ElectrumScriptHash(scriptPubKey: output.scriptPubKey.bytes)
        let unspent = try await withClient { client throws(ElectrumError) in try await client.unspent(scriptHash) }
        if let entry = unspent.first(where: { $0.outPoint == outpoint }) {
            guard entry.height > 0 else {
                return includeMempool ? UnspentOutputInfo(output: output, confirmations: 0, isCoinbase: funding.isCoinbase) : nil
            }
            let confirmations = try await provenConfirmation(outpoint.txid, height: entry.height).confirmations
            return UnspentOutputInfo(output: output, confirmations: confirmations, isCoinbase: funding.isCoinbase)
        }
        guard !includeMempool else { return nil }
        // Not listed: spent, in the mempool or in a block. Only a confirmed spend counts here.
        let history = try await withClient { client throws(ElectrumError) in try await client.history(scriptHash) }
        guard let fundingItem = history.first(where: { $0.txid == outpoint.txid }), fundingItem.isConfirmed else { return nil }
        for item in history where item.isConfirmed && item.txid != outpoint.txid {
            if try await fetch(item.txid).inputs.contains(where: { $0.previousOutput == outpoint }) { return nil }
        }
        let confirmations = try await provenConfirmation(outpoint.txid, height: fundingItem.height).confirmations
        return UnspentOutputInfo(output: output, confirmations: confirmations, isCoinbase: funding.isCoinbase)
    }

    public func estimateFee(targetBlocks: Int) async throws(ChainBackendError) -> FeeRate? {
        // A server that stopped following has a stale mempool too: its estimate is refused
        // with the lag's reason (and at once, not after a timeout on its node).
        _ = try await currentTip()
        let rate = try await withClient { client throws(ElectrumError) in try await client.estimateFee(blocks: targetBlocks) }
        guard let rate else { return nil }
        do { return try FeeRate(satPerKvB: rate) } catch {
            throw .malformedResponse("fee estimate \(rate) sat/kvB is out of range")
        }
    }

    /// Counted among the watched scripts' mempool transactions: the transaction itself and
    /// those spending it, directly or not. A lock's outputs (the contract and the wallet's
    /// change) are all watched, so every child that could be evicted by a replacement is.
    public func mempoolDescendantCount(_ txid: TransactionID) async throws(ChainBackendError) -> Int? {
        try await refreshHistories()
        let mempool = book.mempoolTransactions
        guard mempool.contains(txid) else {
            guard let found = try await transaction(txid), found.confirmations == 0 else { return nil }
            return 1
        }
        var family: Set<TransactionID> = [txid]
        var grew = true
        while grew {
            grew = false
            for other in mempool where !family.contains(other) {
                let spends = try await fetch(other).inputs.contains { family.contains($0.previousOutput.txid) }
                if spends {
                    family.insert(other)
                    grew = true
                }
            }
        }
        return family.count
    }

    /// Subscribes the new scripts and reads their histories; returns those already used
    /// and the lowest height at which one has a confirmed transaction.
    public func watch(scripts: Set<Script>) async throws(ChainBackendError) -> ScriptHistorySummary {
        let new = book.add(scripts)
        guard !new.isEmpty else { return .none }
        do throws(ChainBackendError) {
            let tip = try await currentTip()
            var summary = ScriptHistorySummary()
            for chunk in Self.chunks(new) {
                let histories = try await withClient { client throws(ElectrumError) in
                    for result in try await client.connection.batch(chunk.map { (ElectrumMethod.scriptHashSubscribe, [.string($0.hex)]) }) {
                        _ = try result.get()
                    }
                    return try await client.connection.batch(chunk.map { (ElectrumMethod.history, [.string($0.hex)]) })
                }
                for (hash, result) in zip(chunk, histories) {
                    let history: [ElectrumHistoryItem]
                    do throws(ElectrumError) {
                        history = try ElectrumDecoding.history(try result.get(), method: ElectrumMethod.history)
                    } catch {
                        throw map(error)
                    }
                    book.record(history, for: hash)
                    if !history.isEmpty, let script = book.scripts[hash] { summary.used.insert(script) }
                    for item in history where item.isConfirmed && item.height <= tip.height {
                        summary.lowestConfirmedHeight = min(summary.lowestConfirmedHeight ?? item.height, item.height)
                    }
                }
            }
            return summary
        } catch {
            book.remove(new)
            throw error
        }
    }

    /// The spent outputs' scripts, from their funding transactions; an outpoint whose
    /// funding transaction the server does not know yet is tried again at the next refresh.
    public func watch(outpoints: Set<OutPoint>) async throws(ChainBackendError) {
        var scripts: Set<Script> = []
        var unresolved: Set<OutPoint> = []
        for outpoint in outpoints {
            do {
                let funding = try await fetch(outpoint.txid)
                if Int(outpoint.index) < funding.outputs.count { scripts.insert(funding.outputs[Int(outpoint.index)].scriptPubKey) }
            } catch .rpc {
                unresolved.insert(outpoint)
            }
        }
        addUnresolved(unresolved)
        if !scripts.isEmpty { _ = try await watch(scripts: scripts) }
    }

    // MARK: helpers

    /// Reads again the histories that may be out of date at the server's tip.
    func refreshHistories() async throws(ChainBackendError) {
        let pendingOutpoints = takeUnresolved()
        if !pendingOutpoints.isEmpty {
            do { try await watch(outpoints: pendingOutpoints) } catch {
                addUnresolved(pendingOutpoints)
                throw error
            }
        }
        let tip = try await currentTip().header.hash
        let due = book.beginRefresh(at: tip)
        do throws(ChainBackendError) {
            for chunk in Self.chunks(due) {
                let results = try await withClient { client throws(ElectrumError) in
                    try await client.connection.batch(chunk.map { (ElectrumMethod.history, [.string($0.hex)]) })
                }
                for (hash, result) in zip(chunk, results) {
                    do throws(ElectrumError) {
                        book.record(try ElectrumDecoding.history(try result.get(), method: ElectrumMethod.history), for: hash)
                    } catch {
                        throw map(error)
                    }
                }
            }
        } catch {
            book.abandonRefresh(due)
            throw error
        }
        book.finishRefresh(at: tip)
    }

    /// A transaction by txid, from the cache or the server (checked to be that txid).
    func fetch(_ txid: TransactionID) async throws(ChainBackendError) -> Transaction {
        if let cached = cachedTransaction(txid) { return cached }
        let transaction = try await withClient { client throws(ElectrumError) in try await client.transaction(txid) }
        cache(transaction)
        return transaction
    }

    /// The height the server's index gives the transaction, read from the history of its
    /// first output's script (or, for a transaction paying only OP_RETURN, of nothing:
    /// such a transaction never concerns the node); nil while unconfirmed or unlisted.
    private func confirmedHeight(of transaction: Transaction) async throws(ChainBackendError) -> Int? {
        guard let output = transaction.outputs.first(where: { $0.scriptPubKey.bytes.first != 0x6a }) else { return nil }
        let scriptHash = ElectrumScriptHash(scriptPubKey: output.scriptPubKey.bytes)
        let tipHash = try await currentTip().header.hash
        let history: [ElectrumHistoryItem]
        if let fresh = book.freshHistory(scriptHash, at: tipHash) {
            history = fresh
        } else {
            history = try await withClient { client throws(ElectrumError) in try await client.history(scriptHash) }
        }
        guard let item = history.first(where: { $0.txid == transaction.txid }), item.isConfirmed else { return nil }
        return item.height
    }

    /// The block hash and confirmations of `txid` at `height`, once its merkle proof leads
    /// to the merkle root of the header at that height.
    func provenConfirmation(_ txid: TransactionID, height: Int) async throws(ChainBackendError)
        -> (hash: BlockHash, confirmations: Int) {
        // One tip for both the header and the count: on an untrusted server each reading
        // is checked against LND's, which is work not to do twice.
        let tip = try await currentTip()
        let header = try await header(atHeight: height, tip: tip)
        let proof = try await withClient { client throws(ElectrumError) in try await client.merkleProof(txid, height: height) }
        guard proof.proves(txid, in: header) else {
            throw .malformedResponse("the Electrum server says \(txid) is in block \(height), but its merkle proof does not "
                + "lead to that block's merkle root (its chain moved, or it is lying)")
        }
        // A trusted server may list a transaction a moment before its tip notification
        // comes: one confirmation. An anchored header is at or below the tip already.
        return (header.hash, max(tip.height - height + 1, 1))
    }
}
