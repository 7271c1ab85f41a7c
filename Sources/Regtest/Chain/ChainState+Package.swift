import Bitcoin

extension ChainState {
    /// Core's `submitpackage` for a child with its parents (the shape is checked by the
    /// caller): each transaction is first tried alone; those refused only for their fee
    /// (`min relay fee not met`, `mempool min fee not met`) are tried again together, and go
    /// in when their combined fee rate meets the floors, so a low-fee parent rides on its
    /// child's fee (CPFP). Transactions accepted alone stay accepted when others fail, as in
    /// Core.
    mutating func submitPackage(_ transactions: [Transaction], maxFeeRate: Int64) throws -> PackageSubmission {
        let before = Set(mempool.orderedEntries.map(\.txid))
        var results: [TransactionID: PackageSubmission.Result] = [:]
        var deferred: [(Transaction, MempoolRejection)] = []
        for transaction in transactions {
            if let entry = mempool.entry(transaction.txid) {
                results[transaction.txid] = Self.result(transaction, entry: entry, includes: [entry])
                continue
            }
            do {
                let entry = try accept(transaction, maxFeeRate: maxFeeRate, testOnly: false)
                results[transaction.txid] = Self.result(transaction, entry: entry, includes: [entry])
            } catch let rejection as MempoolRejection where Self.feeOnly.contains(rejection.reason)
                        || (rejection.kind == .missingInputs && spends(transaction, deferred.map(\.0))) {
                // A child of a deferred parent misses its inputs only until the parent is in.
                deferred.append((transaction, rejection))
            } catch let rejection as MempoolRejection {
                results[transaction.txid] = Self.refused(transaction, rejection.message)
            }
        }
        if !deferred.isEmpty { try acceptTogether(deferred, maxFeeRate: maxFeeRate, into: &results) }
        let replaced = before.subtracting(mempool.orderedEntries.map(\.txid))
        return PackageSubmission(results: transactions.compactMap { results[$0.txid] },
                                 replaced: replaced.sorted { $0.hex < $1.hex })
    }

    private func spends(_ transaction: Transaction, _ parents: [Transaction]) -> Bool {
        let txids = Set(parents.map(\.txid))
        return transaction.inputs.contains { txids.contains($0.previousOutput.txid) }
    }

    /// The reasons a transaction may be reconsidered as part of its package (Core's TX_RECONSIDERABLE).
    private static let feeOnly: Set<String> = ["min relay fee not met", "mempool min fee not met"]

    /// Accepts the fee-refused members together, on a copy first, keeping the copy only when
    /// every member is valid and their combined rate meets both floors.
    private mutating func acceptTogether(_ members: [(Transaction, MempoolRejection)], maxFeeRate: Int64,
                                         into results: inout [TransactionID: PackageSubmission.Result]) throws {
        var trial = self
        var entries: [MempoolEntry] = []
        for (transaction, _) in members {
            do {
                entries.append(try trial.accept(transaction, maxFeeRate: maxFeeRate, testOnly: false, checksFeeFloors: false))
            } catch let rejection as MempoolRejection {
                for (member, original) in members {
                    results[member.txid] = Self.refused(member, member.txid == transaction.txid ? rejection.message : original.message)
                }
                return
            }
        }
        let fee = entries.reduce(Int64(0)) { $0 + $1.fee }
        let vsize = entries.reduce(0) { $0 + $1.vsize }
        let floor = max(policy.minRelayFeeRate, mempoolMinFeeRate)
        guard fee >= Money.fee(ratePerKvB: floor, vsize: vsize) else {
            for (member, original) in members { results[member.txid] = Self.refused(member, original.message) }
            return
        }
        self = trial
        for (entry, (transaction, _)) in zip(entries, members) {
            results[transaction.txid] = Self.result(transaction, entry: entry, includes: entries)
        }
    }

    private static func result(_ transaction: Transaction, entry: MempoolEntry,
                               includes: [MempoolEntry]) -> PackageSubmission.Result {
        let fee = includes.reduce(Int64(0)) { $0 + $1.fee }
        let vsize = includes.reduce(0) { $0 + $1.vsize }
        return PackageSubmission.Result(transaction: transaction, entry: entry, error: nil,
                                        effectiveFeeRate: fee * 1_000 / Int64(max(vsize, 1)),
                                        effectiveIncludes: includes.map(\.wtxid))
    }

    private static func refused(_ transaction: Transaction, _ message: String) -> PackageSubmission.Result {
        PackageSubmission.Result(transaction: transaction, entry: nil, error: message, effectiveFeeRate: 0,
                                 effectiveIncludes: [])
    }
}
