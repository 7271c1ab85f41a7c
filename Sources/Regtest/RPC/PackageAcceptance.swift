import Bitcoin

/// `testmempoolaccept`'s results, shaped as Core v31 shapes them. One transaction is
/// judged alone. Several are first checked as a package (no duplicates, parents before
/// children, no two spending one outpoint); a malformed package gives every entry a
/// `package-error`. Core then runs its checks in stages over the whole package and stops at
/// the first failure, so transactions it never finished get only `txid` and `wtxid`:
/// a policy failure (stage one) leaves every other entry bare; a script failure (stage
/// two) leaves the earlier transactions allowed and the later ones bare.
///
/// The chain judges one transaction at a time against the mempool, so a package whose
/// transactions spend each other cannot be judged; the hub says so instead of guessing.
struct PackageAcceptance {
    let chain: RegtestChain
    /// sat/kvB; 0 = no cap.
    let maxFeeRate: Int64

    private enum Verdict {
        case accepted(MempoolEntry)
        case rejected(MempoolRejection)
        /// Valid, but over the caller's fee cap (checked by Core after acceptance).
        case overFeeCap

        var isScriptFailure: Bool {
            if case .rejected(let rejection) = self { return rejection.reason.hasPrefix("mempool-script-verify-flag-failed") }
            return false
        }

        var isPolicyFailure: Bool {
            if case .rejected = self { return !isScriptFailure }
            return false
        }
    }

    func results(_ transactions: [Transaction]) throws -> OrderedJSON {
        if transactions.count > 1, let error = Self.packageError(transactions) {
            return .array(transactions.map { transaction in
                .object(["txid": .string(transaction.txid.hex), "wtxid": .string(transaction.wtxid.hex),
                         "package-error": .string(error)])
            })
        }
        let txids = Set(transactions.map(\.txid))
        if transactions.count > 1,
           transactions.contains(where: { $0.inputs.contains { txids.contains($0.previousOutput.txid) } }) {
            throw RPCError.misc("the regtest hub judges packages of unrelated transactions only; "
                + "submit a parent before testing its child")
        }
        let verdicts = try transactions.map(verdict)
        var judged = Array(repeating: false, count: transactions.count)
        if let failure = verdicts.firstIndex(where: \.isPolicyFailure), transactions.count > 1 {
            judged[failure] = true
        } else {
            for index in verdicts.indices {
                judged[index] = true
                if verdicts[index].isScriptFailure { break }
            }
        }
        var exitEarly = false
        var results: [OrderedJSON] = []
        for (index, transaction) in transactions.enumerated() {
            var entry = OrderedJSONObject()
            entry.add("txid", .string(transaction.txid.hex))
            entry.add("wtxid", .string(transaction.wtxid.hex))
            if judged[index] && !exitEarly {
                switch verdicts[index] {
                case .accepted(let accepted):
                    entry.add("allowed", true)
                    entry.add("vsize", .int(accepted.vsize))
                    entry.add("fees", .object([
                        "base": .amount(accepted.fee),
                        "effective-feerate": .amount(accepted.fee * 1_000 / Int64(max(accepted.vsize, 1))),
                        "effective-includes": [.string(accepted.wtxid.hex)],
                    ]))
                case .overFeeCap:
                    entry.add("allowed", false)
                    entry.add("reject-reason", "max-fee-exceeded")
                    exitEarly = true
                case .rejected(let rejection):
                    entry.add("allowed", false)
                    entry.add("reject-reason", .string(rejection.testAcceptReason))
                    if let details = rejection.testAcceptDetails { entry.add("reject-details", .string(details)) }
                }
            }
            results.append(entry.json)
        }
        return .array(results)
    }

    private func verdict(_ transaction: Transaction) throws -> Verdict {
        do {
            return .accepted(try chain.testAccept(transaction, maxFeeRate: maxFeeRate))
        } catch let rejection as MempoolRejection {
            return rejection.kind == .maxFeeExceeded ? .overFeeCap : .rejected(rejection)
        } catch {
            throw BitcoinRPCMethods.rpcError(error)
        }
    }

    /// Core's `IsWellFormedPackage` / `IsConsistentPackage` reasons.
    static func packageError(_ transactions: [Transaction]) -> String? {
        let txids = transactions.map(\.txid)
        if Set(txids).count != txids.count { return "package-contains-duplicates" }
        if transactions.reduce(0, { $0 + $1.weight }) > 404_000 { return "package-too-large" }
        var later = Set(txids)
        for transaction in transactions {
            later.remove(transaction.txid)
            if transaction.inputs.contains(where: { later.contains($0.previousOutput.txid) }) { return "package-not-sorted" }
        }
        var spent = Set<OutPoint>()
        for transaction in transactions {
            for input in transaction.inputs where !spent.insert(input.previousOutput).inserted {
                return "conflict-in-package"
            }
        }
        return nil
    }
}
