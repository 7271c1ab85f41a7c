import Bitcoin

/// The hub's mempool storage: entries by txid, which entry spends each outpoint, and the
/// parent/child graph between entries. Acceptance rules live in `MempoolAcceptance`; this
/// type only keeps the set consistent.
public struct Mempool: Sendable {
    private(set) var entries: [TransactionID: MempoolEntry] = [:]
    /// Acceptance order, so listings and block assembly are deterministic.
    private(set) var order: [TransactionID] = []
    /// Outpoint -> the mempool transaction spending it.
    private(set) var spenders: [OutPoint: TransactionID] = [:]

    public init() {}

    public var count: Int { entries.count }
    public func entry(_ txid: TransactionID) -> MempoolEntry? { entries[txid] }
    public var orderedEntries: [MempoolEntry] { order.compactMap { entries[$0] } }

    /// The mempool transaction spending `outpoint`, if any.
    public func spender(of outpoint: OutPoint) -> TransactionID? { spenders[outpoint] }

    /// An output created by a mempool transaction.
    public func output(_ outpoint: OutPoint) -> TransactionOutput? {
        guard let entry = entries[outpoint.txid], Int(outpoint.index) < entry.transaction.outputs.count else { return nil }
        return entry.transaction.outputs[Int(outpoint.index)]
    }

    public func parents(of txid: TransactionID) -> [TransactionID] {
        guard let entry = entries[txid] else { return [] }
        var seen = Set<TransactionID>()
        return entry.transaction.inputs.compactMap { input in
            let parent = input.previousOutput.txid
            return entries[parent] != nil && seen.insert(parent).inserted ? parent : nil
        }
    }

    public func children(of txid: TransactionID) -> [TransactionID] {
        guard let entry = entries[txid] else { return [] }
        var seen = Set<TransactionID>()
        return entry.transaction.outputs.indices.compactMap { index in
            guard let child = spenders[OutPoint(txid: txid, index: UInt32(index))], seen.insert(child).inserted else { return nil }
            return child
        }
    }

    /// Every in-mempool ancestor (not including `txid`).
    public func ancestors(of txid: TransactionID) -> Set<TransactionID> { closure(from: txid, parents(of:)) }

    /// Every in-mempool descendant (not including `txid`).
    public func descendants(of txid: TransactionID) -> Set<TransactionID> { closure(from: txid, children(of:)) }

    /// The cluster a new transaction spending from `spent` would join: every mempool
    /// transaction connected to one of them through parents and children, leaving out
    /// `excluded` (what the new transaction replaces).
    public func cluster(joining spent: Set<TransactionID>, excluding excluded: Set<TransactionID>) -> Set<TransactionID> {
        var found = Set<TransactionID>()
        var queue = Array(spent.filter { entries[$0] != nil && !excluded.contains($0) })
        while let next = queue.popLast() {
            guard found.insert(next).inserted else { continue }
            for relative in parents(of: next) + children(of: next) where !excluded.contains(relative) {
                queue.append(relative)
            }
        }
        return found
    }

    private func closure(from start: TransactionID, _ step: (TransactionID) -> [TransactionID]) -> Set<TransactionID> {
        var found = Set<TransactionID>()
        var queue = step(start)
        while let next = queue.popLast() {
            if found.insert(next).inserted { queue.append(contentsOf: step(next)) }
        }
        return found
    }

    /// The entry with its relatives' counts, sizes and fees.
    public func info(_ txid: TransactionID) -> MempoolEntryInfo? {
        guard let entry = entries[txid] else { return nil }
        let ancestors = ancestors(of: txid).compactMap { entries[$0] } + [entry]
        let descendants = descendants(of: txid).compactMap { entries[$0] } + [entry]
        return MempoolEntryInfo(entry: entry, parents: parents(of: txid), children: children(of: txid),
                                ancestorCount: ancestors.count, ancestorSize: ancestors.reduce(0) { $0 + $1.vsize },
                                ancestorFees: ancestors.reduce(0) { $0 + $1.fee },
                                descendantCount: descendants.count, descendantSize: descendants.reduce(0) { $0 + $1.vsize },
                                descendantFees: descendants.reduce(0) { $0 + $1.fee })
    }

    mutating func add(_ entry: MempoolEntry) {
        entries[entry.txid] = entry
        order.append(entry.txid)
        for input in entry.transaction.inputs { spenders[input.previousOutput] = entry.txid }
    }

    /// Removes `txid` and everything that spends from it; returns what was removed.
    @discardableResult
    mutating func removeWithDescendants(_ txid: TransactionID) -> [MempoolEntry] {
        guard entries[txid] != nil else { return [] }
        let doomed = descendants(of: txid).union([txid])
        let removed = order.filter { doomed.contains($0) }.compactMap { entries[$0] }
        for entry in removed {
            entries.removeValue(forKey: entry.txid)
            for input in entry.transaction.inputs where spenders[input.previousOutput] == entry.txid {
                spenders.removeValue(forKey: input.previousOutput)
            }
        }
        order.removeAll { doomed.contains($0) }
        return removed
    }

    /// After `block` is connected: drops its transactions (their descendants stay, now
    /// spending confirmed outputs) and every transaction that conflicts with it, with descendants.
    mutating func removeForBlock(_ block: Block) {
        for transaction in block.transactions {
            let txid = transaction.txid
            if let entry = entries.removeValue(forKey: txid) {
                for input in entry.transaction.inputs where spenders[input.previousOutput] == txid {
                    spenders.removeValue(forKey: input.previousOutput)
                }
                order.removeAll { $0 == txid }
            }
        }
        for transaction in block.transactions where !transaction.isCoinbase {
            for input in transaction.inputs {
                if let conflict = spenders[input.previousOutput] { removeWithDescendants(conflict) }
            }
        }
    }

    /// Empties the mempool, returning its entries in acceptance order.
    mutating func removeAll() -> [MempoolEntry] {
        let all = orderedEntries
        self = Mempool()
        return all
    }
}
