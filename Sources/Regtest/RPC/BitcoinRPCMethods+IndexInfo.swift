import Bitcoin

extension BitcoinRPCMethods {
    /// `getindexinfo`: the hub keeps both of the optional indexes ElectrumX 2.0 requires,
    /// the transaction index (`getrawtransaction` of any confirmed transaction) and the
    /// spender index (`gettxspendingprevout` with `mempool_only=false`). Both are updated
    /// with each block under the chain's lock, so they are always synced to the tip. A hub
    /// configured without `txIndex` reports neither, as Core started without the optional
    /// indexes (its default).
    static func indexInfo(_ hub: HubChain) -> [RPCMethod] {
        let chain = hub.chain
        return [
            RPCMethod("getindexinfo", summary: "Returns the status of one or all available indices currently running in the node.",
                      arguments: [RPCArgument("index_name", .string, default: "",
                                              "Filter results for an index with a specific name.")],
                      result: "{...}    (json object)",
                      examples: [.cli(""), .rpc(""), .cli("txindex"), .rpc("txindex")]) { params in
                let height = chain.height
                let filter = params.string(0)
                // Core names its indexes in this order; an unknown name gives an empty object.
                let members: [OrderedJSON.Member] = ["txindex", "txospenderindex"]
                    .filter { hub.txIndex && (filter == nil || $0 == filter) }
                    .map { OrderedJSON.Member($0, .object(["synced": true, "best_block_height": .int(height)])) }
                return .object(members)
            },
        ]
    }
}
