import Bitcoin

/// What the Electrum backend knows about the scripts it watches: each one's history as the
/// server last gave it, and which histories may be out of date. Pure: the backend performs
/// the calls this asks for.
///
/// A history is stale after a status notification for its script, and every history is
/// stale once the server's tip moved past the one they were read at (a block confirms,
/// a reorg unconfirms). Blocks and the mempool are answered from fresh histories only.
struct ElectrumScriptBook: Sendable {
    private(set) var scripts: [ElectrumScriptHash: Script] = [:]
    private var histories: [ElectrumScriptHash: [ElectrumHistoryItem]] = [:]
    private var stale: Set<ElectrumScriptHash> = []
    /// The tip hash every history was last read at (or after).
    private var freshAt: BlockHash?
    /// Transactions this node broadcast that no history lists yet: the server accepted
    /// them (its Bitcoin node holds them) but indexes its mempool a moment later (ElectrumX
    /// polls). With when (milliseconds) and the outpoints they spend.
    private var broadcasts: [TransactionID: (at: UInt64, spends: Set<OutPoint>)] = [:]
    /// How long a broadcast the server does not list still counts as in the mempool: far
    /// longer than any indexing delay, short enough that one the network dropped is
    /// forgotten.
    static let broadcastGraceMilliseconds: UInt64 = 60_000

    var allHashes: [ElectrumScriptHash] { Array(scripts.keys) }

    /// Adds scripts; returns the hashes not watched before.
    mutating func add(_ added: Set<Script>) -> [ElectrumScriptHash] {
        var new: [ElectrumScriptHash] = []
        for script in added {
            let hash = ElectrumScriptHash(scriptPubKey: script.bytes)
            if scripts[hash] == nil {
                scripts[hash] = script
                new.append(hash)
            }
        }
        return new
    }

    /// Forgets scripts whose subscription failed, so the next `add` tries them again.
    mutating func remove(_ hashes: [ElectrumScriptHash]) {
        for hash in hashes {
            scripts[hash] = nil
            histories[hash] = nil
            stale.remove(hash)
        }
    }

    mutating func markStale(_ hash: ElectrumScriptHash) {
        if scripts[hash] != nil { stale.insert(hash) }
    }

    /// After a reconnection: notifications may have been missed.
    mutating func markAllStale() { freshAt = nil }

    /// The histories to read again before answering at `tip`; they count as fresh from now
    /// (a notification arriving during the read marks its script stale again).
    mutating func beginRefresh(at tip: BlockHash) -> [ElectrumScriptHash] {
        let due = freshAt == tip ? Array(stale) : allHashes
        stale.subtract(due)
        return due
    }

    /// The refresh for `tip` succeeded for every script it named.
    mutating func finishRefresh(at tip: BlockHash) { freshAt = tip }

    /// A refresh failed: what it cleared is stale again.
    mutating func abandonRefresh(_ hashes: [ElectrumScriptHash]) { stale.formUnion(hashes) }

    mutating func record(_ history: [ElectrumHistoryItem], for hash: ElectrumScriptHash) {
        if scripts[hash] != nil { histories[hash] = history }
    }

    /// The history of a watched script when it is known fresh at `tip`.
    func freshHistory(_ hash: ElectrumScriptHash, at tip: BlockHash) -> [ElectrumHistoryItem]? {
        guard freshAt == tip, !stale.contains(hash) else { return nil }
        return histories[hash]
    }

    /// Every watched transaction the histories place in the block at `height`.
    func transactions(atHeight height: Int) -> Set<TransactionID> {
        var found: Set<TransactionID> = []
        for history in histories.values {
            for item in history where item.height == height { found.insert(item.txid) }
        }
        return found
    }

    /// Every watched transaction the histories place in the mempool (height 0 or -1).
    var mempoolTransactions: Set<TransactionID> {
        var found: Set<TransactionID> = []
        for history in histories.values {
            for item in history where item.height <= 0 { found.insert(item.txid) }
        }
        return found
    }

    /// A transaction the server accepted from this node at `now`. An earlier broadcast
    /// spending one of the same outpoints was replaced by it and no longer counts.
    mutating func recordBroadcast(_ transaction: Transaction, at now: UInt64) {
        let spends = Set(transaction.inputs.map(\.previousOutput))
        broadcasts = broadcasts.filter { $0.value.spends.isDisjoint(with: spends) }
        broadcasts[transaction.txid] = (now, spends)
    }

    /// The mempool as `sendrawtransaction` leaves it on Core: the histories' mempool
    /// transactions, plus this node's broadcasts no history lists yet (younger than the
    /// grace). A broadcast a history lists, in the mempool or a block, is the server's to
    /// report from then on.
    mutating func mempool(at now: UInt64) -> Set<TransactionID> {
        var listed: Set<TransactionID> = []
        var found: Set<TransactionID> = []
        for history in histories.values {
            for item in history {
                listed.insert(item.txid)
                if item.height <= 0 { found.insert(item.txid) }
            }
        }
        broadcasts = broadcasts.filter { !listed.contains($0.key) && now &- $0.value.at < Self.broadcastGraceMilliseconds }
        return found.union(broadcasts.keys)
    }
}
