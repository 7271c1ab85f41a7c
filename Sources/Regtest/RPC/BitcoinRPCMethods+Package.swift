import Bitcoin

extension BitcoinRPCMethods {
    /// Core v31's `submitpackage`: a child with its unconfirmed parents, child last. A
    /// parent under the fee floors gets in on the package's fee rate (CPFP), which a
    /// fee-bumping test needs once `hub_setmempoolminfee` has raised the floor.
    static func package(_ hub: HubChain) -> [RPCMethod] {
        let chain = hub.chain
        return [
            RPCMethod("submitpackage",
                      summary: "Submit a package of raw transactions (serialized, hex-encoded) to local node.\n"
                          + "The package will be validated according to consensus and mempool policy rules. If any "
                          + "transaction passes, it will be accepted to mempool.",
                      arguments: [RPCArgument("package", .array, "An array of raw transactions. The package must consist of "
                                      + "a transaction with (some, all, or none of) its unconfirmed parents."),
                                  RPCArgument("maxfeerate", .amount, default: "\"0.10\"",
                                              "Reject transactions whose fee rate is higher than the specified value, expressed in BTC/kvB."),
                                  RPCArgument("maxburnamount", .amount, default: "\"0.00\"",
                                              "Reject transactions with provably unspendable outputs larger than this, in BTC.")],
                      result: "{...}    (json object) package_msg, tx-results by wtxid, replaced-transactions",
                      examples: [.cli("'[\"rawtx1\", \"rawtx2\"]'"), .rpc("[\"rawtx1\", \"rawtx2\"]")]) { params in
                guard case .array(let raw)? = params[0], (1...maxPackageCount).contains(raw.count) else {
                    throw RPCError.invalidParameter("Array must contain between 1 and \(maxPackageCount) transactions.")
                }
                let maxFeeRate = try feeRate(params, index: 1, policy: hub.policy)
                let maxBurn = try params.amount(2) ?? 0
                var transactions: [Transaction] = []
                for element in raw {
                    guard case .string(let hex) = element else { throw RPCError.type("JSON value is not a string as expected") }
                    let transaction = try decode(hex)
                    if transaction.outputs.contains(where: { isUnspendable($0.scriptPubKey) && $0.value > maxBurn }) {
                        throw RPCError(code: -25, message: "Unspendable output exceeds maximum configured by user (maxburnamount)")
                    }
                    transactions.append(transaction)
                }
                guard isChildWithParents(transactions) else {
                    throw RPCError.invalidParameter("package topology disallowed. not child-with-parents or parents depend on each other.")
                }
                if let reason = PackageAcceptance.packageError(transactions) {
                    throw RPCError(code: -25, message: reason)
                }
                do {
                    let submission = try hub.changingMempool { try chain.submitPackage(transactions, maxFeeRate: maxFeeRate) }
                    return submissionJSON(submission)
                } catch {
                    throw rpcError(error)
                }
            },
        ]
    }

    /// Core's `IsChildWithParentsTree`: every transaction but the last is a parent the last
    /// one spends, and no parent spends another.
    private static func isChildWithParents(_ transactions: [Transaction]) -> Bool {
        guard let child = transactions.last, transactions.count > 1 else { return true }
        let parents = transactions.dropLast().map(\.txid)
        let spentByChild = Set(child.inputs.map(\.previousOutput.txid))
        let parentSet = Set(parents)
        return parents.allSatisfy(spentByChild.contains)
            && transactions.dropLast().allSatisfy { !$0.inputs.contains { parentSet.contains($0.previousOutput.txid) } }
    }

    private static func submissionJSON(_ submission: PackageSubmission) -> OrderedJSON {
        var results = OrderedJSONObject()
        for result in submission.results {
            var entry = OrderedJSONObject()
            entry.add("txid", .string(result.transaction.txid.hex))
            if let error = result.error {
                entry.add("error", .string(error))
            } else if let accepted = result.entry {
                if accepted.wtxid != result.transaction.wtxid { entry.add("other-wtxid", .string(accepted.wtxid.hex)) }
                entry.add("vsize", .int(accepted.vsize))
                entry.add("fees", .object(["base": .amount(accepted.fee),
                                           "effective-feerate": .amount(result.effectiveFeeRate),
                                           "effective-includes": .array(result.effectiveIncludes.map { .string($0.hex) })]))
            }
            results.add(result.transaction.wtxid.hex, entry.json)
        }
        return .object(["package_msg": .string(submission.message), "tx-results": results.json,
                        "replaced-transactions": .array(submission.replaced.map { .string($0.hex) })])
    }
}
