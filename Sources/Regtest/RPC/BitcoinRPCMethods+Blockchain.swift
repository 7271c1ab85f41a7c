import Bitcoin

extension BitcoinRPCMethods {
    static func blockchain(_ hub: HubChain) -> [RPCMethod] {
        let chain = hub.chain
        return [
            RPCMethod("getblockcount", summary: "Returns the height of the most-work fully-validated chain.\nThe genesis block has height 0.",
                      result: "n    (numeric) The current block count",
                      examples: [.cli(""), .rpc("")]) { _ in
                .int(chain.height)
            },
            RPCMethod("getbestblockhash", summary: "Returns the hash of the best (tip) block in the most-work fully-validated chain.",
                      result: "\"hex\"    (string) the block hash, hex-encoded",
                      examples: [.cli(""), .rpc("")]) { _ in
                .string(chain.tipHash.hex)
            },
            RPCMethod("getblockhash", summary: "Returns hash of block in best-block-chain at height provided.",
                      arguments: [RPCArgument("height", .number, "The height index")],
                      result: "\"hex\"    (string) The block hash",
                      examples: [.cli("1000"), .rpc("1000")]) { params in
                let height = try params.int(0, default: 0)
                guard let hash = chain.blockHash(atHeight: height) else {
                    throw RPCError.invalidParameter("Block height out of range")
                }
                return .string(hash.hex)
            },
            RPCMethod("getblockheader",
                      summary: "If verbose is false, returns a string that is serialized, hex-encoded data for blockheader 'hash'.\n"
                          + "If verbose is true, returns an Object with information about blockheader <hash>.",
                      arguments: [RPCArgument("blockhash", .hex, "The block hash"),
                                  RPCArgument("verbose", .bool, default: "true", "true for a json object, false for the hex-encoded data")],
                      result: "{...}    (json object) for verbose = true\n\"hex\"    (string) for verbose=false",
                      examples: [.cli("\"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09\""),
                                 .rpc("\"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09\"")]) { params in
                let hash = try params.blockHash(0, name: "hash")
                guard let block = chain.block(hash) else { throw RPCError.invalidAddressOrKey("Block not found") }
                if !params.bool(1, default: true) { return .string(block.block.header.serialized.hex) }
                return BlockJSON.header(block)
            },
            RPCMethod("getblock",
                      summary: "If verbosity is 0, returns a string that is serialized, hex-encoded data for block 'hash'.\n"
                          + "If verbosity is 1, returns an Object with information about block <hash>.\n"
                          + "If verbosity is 2, returns an Object with information about block <hash> and information about each transaction.\n"
                          + "If verbosity is 3, returns an Object with information about block <hash> and information about each transaction, including prevout information for inputs (only for unpruned blocks in the current best chain).",
                      arguments: [RPCArgument("blockhash", .hex, "The block hash"),
                                  RPCArgument("verbosity|verbose", .number, default: "1", skipTypeCheck: true,
                                              "0 for hex-encoded data, 1 for a JSON object, 2 for JSON object with transaction data, and 3 for JSON object with transaction data including prevout information for inputs")],
                      result: "\"hex\"    (string) for verbosity = 0\n{...}    (json object) for verbosity >= 1",
                      examples: [.cli("\"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09\""),
                                 .rpc("\"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09\"")]) { params in
                let hash = try params.blockHash(0)
                let verbosity = try params.verbosity(1, default: 1)
                guard let block = chain.block(hash) else { throw RPCError.invalidAddressOrKey("Block not found") }
                if verbosity <= 0 { return .string(block.block.serialized.hex) }
                return BlockJSON.block(block, verbosity: min(verbosity, 3))
            },
            RPCMethod("getblockchaininfo", summary: "Returns an object containing various state info regarding blockchain processing.",
                      result: "{...}    (json object)", examples: [.cli(""), .rpc("")]) { _ in
                blockchainInfo(hub)
            },
            RPCMethod("gettxout", summary: "Returns details about an unspent transaction output.",
                      arguments: [RPCArgument("txid", .hex, "The transaction id"),
                                  RPCArgument("n", .number, "vout number"),
                                  RPCArgument("include_mempool", .bool, default: "true",
                                              "Whether to include the mempool. Note that an unspent output that is spent in the mempool won't appear.")],
                      result: "null    (json null) If the UTXO was not found\n{...}    (json object) Otherwise",
                      examples: [.cli("\"txid\" 1"), .rpc("\"txid\", 1")]) { params in
                let txid = try params.txid(0)
                let index = try params.int(1, default: 0)
                guard index >= 0, index <= Int(UInt32.max),
                      let unspent = chain.unspentOutput(OutPoint(txid: txid, index: UInt32(index)),
                                                        includeMempool: params.bool(2, default: true)) else { return .null }
                return .object(["bestblock": .string(unspent.bestBlock.hex), "confirmations": .int(unspent.confirmations),
                                "value": .amount(unspent.output.value),
                                "scriptPubKey": ScriptPubKeyJSON.json(unspent.output.scriptPubKey),
                                "coinbase": .bool(unspent.isCoinbase)])
            },
            RPCMethod("invalidateblock", summary: "Permanently marks a block as invalid, as if it violated a consensus rule.",
                      arguments: [RPCArgument("blockhash", .hex, "the hash of the block to mark as invalid")],
                      result: "null    (json null)", examples: [.cli("\"blockhash\""), .rpc("\"blockhash\"")]) { params in
                let hash = try params.blockHash(0)
                guard chain.block(hash) != nil else { throw RPCError.invalidAddressOrKey("Block not found") }
                do { try hub.changingMempool { try chain.invalidateBlock(hash) } } catch { throw rpcError(error) }
                return .null
            },
            RPCMethod("reconsiderblock",
                      summary: "Removes invalidity status of a block, its ancestors and its descendants, reconsider them for activation.\n"
                          + "This can be used to undo the effects of invalidateblock.",
                      arguments: [RPCArgument("blockhash", .hex, "the hash of the block to reconsider")],
                      result: "null    (json null)", examples: [.cli("\"blockhash\""), .rpc("\"blockhash\"")]) { params in
                let hash = try params.blockHash(0)
                guard chain.block(hash) != nil else { throw RPCError.invalidAddressOrKey("Block not found") }
                do { try hub.changingMempool { try chain.reconsiderBlock(hash) } } catch { throw rpcError(error) }
                return .null
            },
        ]
    }

    /// `getblockchaininfo`. The hub never syncs: verification progress is 1, and it is in
    /// "initial block download" only while its tip is more than a day old (as Core judges),
    /// i.e. before the first block is mined.
    static func blockchainInfo(_ hub: HubChain) -> OrderedJSON {
        let tip = hub.chain.tip
        let header = tip.block.header
        let sizeOnDisk = hub.sizeOnDisk(tip: tip)
        let now = Int64(HubClock.now())
        return .object([
            "chain": "regtest", "blocks": .int(tip.height), "headers": .int(tip.height),
            "bestblockhash": .string(tip.hash.hex), "bits": .string(BlockJSON.hex32(header.bits)),
            "target": .string(BlockJSON.target(bits: header.bits)),
            "difficulty": .number(CoreNumber.format(CoreNumber.difficulty(bits: header.bits))),
            "time": .int(header.time), "mediantime": .int(tip.medianTimePast), "verificationprogress": 1,
            "initialblockdownload": .bool(Int64(header.time) < now - 24 * 60 * 60),
            "chainwork": .string(BlockJSON.chainWork(tip.chainWork)), "size_on_disk": .int(sizeOnDisk),
            "pruned": false, "warnings": [],
        ])
    }
}
