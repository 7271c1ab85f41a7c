import Bitcoin

extension ChainState {
    /// Core's `mempoolminfee`: the raised minimum when one is set above the relay floor,
    /// else the floor (sat/kvB).
    var effectiveMempoolMinFeeRate: Int64 { max(mempoolMinFeeRate, policy.minRelayFeeRate) }

    /// `hub_setmempoolminfee`: sets the mempool's minimum fee rate (sat/kvB; 0 or anything
    /// at or below the relay floor lifts it) and evicts what now falls below it, as a full
    /// mempool does when its minimum rises. Returns the evicted txids in eviction order.
    ///
    /// Eviction follows Core's pre-cluster `TrimToSize`: the entry with the lowest
    /// descendant score goes first with its descendants, where the score is the higher of
    /// its own fee rate and that of its descendant package (so a parent whose child pays
    /// for it survives with it, and a cheap child goes before its parent). Repeated while the
    /// lowest score is below the minimum.
    mutating func setMempoolMinFee(_ satPerKvB: Int64) -> [TransactionID] {
        mempoolMinFeeRate = satPerKvB > policy.minRelayFeeRate ? satPerKvB : 0
        guard mempoolMinFeeRate > 0 else { return [] }
        var evicted: [TransactionID] = []
        while let lowest = lowestDescendantScore(), lowest.fee * 1_000 < mempoolMinFeeRate * Int64(lowest.vsize) {
            evicted += mempool.removeWithDescendants(lowest.txid).map(\.txid)
        }
        return evicted
    }

    /// The entry with the lowest descendant score, as the fee and size whose rate it is.
    private func lowestDescendantScore() -> (txid: TransactionID, fee: Int64, vsize: Int)? {
        var lowest: (txid: TransactionID, fee: Int64, vsize: Int)?
        for entry in mempool.orderedEntries {
            let package = mempool.descendants(of: entry.txid).compactMap { mempool.entry($0) } + [entry]
            let packageFee = package.reduce(Int64(0)) { $0 + $1.fee }
            let packageSize = package.reduce(0) { $0 + $1.vsize }
            // The higher of the two rates, compared by cross-multiplication.
            let score = entry.fee * Int64(packageSize) >= packageFee * Int64(entry.vsize)
                ? (entry.txid, entry.fee, entry.vsize) : (entry.txid, packageFee, packageSize)
            if let current = lowest, current.fee * Int64(score.2) <= score.1 * Int64(current.vsize) { continue }
            lowest = score
        }
        return lowest
    }
}
