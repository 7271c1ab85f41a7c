import Bitcoin

extension BitcoinRPCMethods {
    static func mempool(_ hub: HubChain) -> [RPCMethod] {
        let chain = hub.chain
        return [
            RPCMethod("getrawmempool",
                      summary: "Returns all transaction ids in memory pool as a json array of string transaction ids.\n\n"
                          + "Hint: use getmempoolentry to fetch a specific transaction from the mempool.",
                      arguments: [RPCArgument("verbose", .bool, default: "false",
                                              "True for a json object, false for array of transaction ids"),
                                  RPCArgument("mempool_sequence", .bool, default: "false",
                                              "If verbose=false, returns a json object with transaction list and mempool sequence number attached.")],
                      result: "[...]    (json array) for verbose = false\n{...}    (json object) for verbose = true",
                      examples: [.cli("true"), .rpc("true")]) { params in
                let verbose = params.bool(0, default: false)
                let withSequence = params.bool(1, default: false)
                let entries = chain.mempoolEntries()
                if verbose {
                    if withSequence {
                        throw RPCError.invalidParameter("Verbose results cannot contain mempool sequence values.")
                    }
                    return .object(entries.map { OrderedJSON.Member($0.entry.txid.hex, entryJSON($0)) })
                }
                let txids = OrderedJSON.array(entries.map { .string($0.entry.txid.hex) })
                if withSequence { return .object(["txids": txids, "mempool_sequence": .int(hub.mempoolSequence)]) }
                return txids
            },
            RPCMethod("getmempoolentry", summary: "Returns mempool data for given transaction",
                      arguments: [RPCArgument("txid", .hex, "The transaction id (must be in mempool)")],
                      result: "{...}    (json object)", examples: [.cli("\"mytxid\""), .rpc("\"mytxid\"")]) { params in
                let txid = try params.txid(0)
                guard let info = chain.mempoolEntry(txid) else { throw RPCError.invalidAddressOrKey("Transaction not in mempool") }
                return entryJSON(info)
            },
            RPCMethod("getmempoolinfo", summary: "Returns details on the active state of the TX memory pool.",
                      result: "{...}    (json object)", examples: [.cli(""), .rpc("")]) { _ in
                let entries = chain.mempoolEntries().map(\.entry)
                let policy = hub.policy
                return .object([
                    "loaded": true, "size": .int(entries.count),
                    "bytes": .int(entries.reduce(0) { $0 + $1.vsize }),
                    // Core reports its allocator's usage; the hub estimates it from the
                    // serialized sizes plus a fixed per-entry overhead.
                    "usage": .int(entries.reduce(0) { $0 + $1.transaction.serialized.count + 1_000 }),
                    "total_fee": .amount(entries.reduce(Int64(0)) { $0 + $1.fee }),
                    "maxmempool": 300_000_000, "mempoolminfee": .amount(chain.mempoolMinFeeRate),
                    "minrelaytxfee": .amount(policy.minRelayFeeRate),
                    "incrementalrelayfee": .amount(policy.incrementalRelayFeeRate),
                    // The hub has no peers: nothing it accepted was ever announced.
                    "unbroadcastcount": .int(entries.count), "fullrbf": true, "permitbaremultisig": true,
                    "maxdatacarriersize": 100_000, "limitclustercount": 64, "limitclustersize": 101_000, "optimal": true,
                ])
            },
        ]
    }

    /// Core v31's mempool entry. The hub's mempool has no cluster linearization, so each
    /// transaction is reported as its own chunk.
    static func entryJSON(_ info: MempoolEntryInfo) -> OrderedJSON {
        let entry = info.entry
        return .object([
            "vsize": .int(entry.vsize), "weight": .int(entry.weight), "time": .int(entry.time),
            "height": .int(entry.height), "descendantcount": .int(info.descendantCount),
            "descendantsize": .int(info.descendantSize), "ancestorcount": .int(info.ancestorCount),
            "ancestorsize": .int(info.ancestorSize), "wtxid": .string(entry.wtxid.hex),
            "chunkweight": .int(entry.weight),
            "fees": .object(["base": .amount(entry.fee), "modified": .amount(entry.fee),
                             "ancestor": .amount(info.ancestorFees), "descendant": .amount(info.descendantFees),
                             "chunk": .amount(entry.fee)]),
            "depends": .array(info.parents.map { .string($0.hex) }),
            "spentby": .array(info.children.map { .string($0.hex) }),
            // Core v31 replaces any mempool transaction (full RBF).
            "bip125-replaceable": true, "unbroadcast": true,
        ])
    }
}
