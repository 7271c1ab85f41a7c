import Bitcoin
import Transport

extension BitcoinRPCMethods {
    /// Core's MAX_PACKAGE_COUNT: the most transactions one `testmempoolaccept` takes.
    static let maxPackageCount = 25

    static func rawTransactions(_ hub: HubChain) -> [RPCMethod] {
        let chain = hub.chain
        return [
            RPCMethod("getrawtransaction",
                      summary: "By default, this call only returns a transaction if it is in the mempool. If -txindex is enabled\n"
                          + "and no blockhash argument is passed, it will return the transaction if it is in the mempool or any block.\n"
                          + "If a blockhash argument is passed, it will return the transaction if\n"
                          + "the specified block is available and the transaction is in that block.",
                      arguments: [RPCArgument("txid", .hex, "The transaction id"),
                                  RPCArgument("verbosity|verbose", .number, default: "0", skipTypeCheck: true,
                                              "0 for hex-encoded data, 1 for a JSON object, and 2 for JSON object with fee and prevout"),
                                  RPCArgument("blockhash", .hex, default: "", "The block in which to look for the transaction")],
                      result: "\"str\"    (string) The serialized transaction as a hex-encoded string for 'txid'\n{...}    (json object)",
                      examples: [.cli("\"mytxid\""), .cli("\"mytxid\" 1"), .rpc("\"mytxid\", 1")]) { params in
                try rawTransaction(params, chain: chain, txIndex: hub.txIndex)
            },
            RPCMethod("sendrawtransaction",
                      summary: "Submit a raw transaction (serialized, hex-encoded) to local node and network.",
                      arguments: [RPCArgument("hexstring", .hex, "The hex string of the raw transaction"),
                                  RPCArgument("maxfeerate", .amount, default: "\"0.10\"",
                                              "Reject transactions whose fee rate is higher than the specified value, expressed in BTC/kvB."),
                                  RPCArgument("maxburnamount", .amount, default: "\"0\"",
                                              "Reject transactions with provably unspendable outputs (e.g. 'datacarrier' outputs that use the OP_RETURN opcode) greater than the specified value, expressed in BTC.")],
                      result: "\"hex\"    (string) The transaction hash in hex",
                      examples: [.cli("\"signedhex\""), .rpc("\"signedhex\"")]) { params in
                let transaction = try decode(params.string(0) ?? "")
                let maxBurn = try params.amount(2) ?? 0
                for output in transaction.outputs where isUnspendable(output.scriptPubKey) && output.value > maxBurn {
                    throw RPCError(code: -25, message: "Unspendable output exceeds maximum configured by user (maxburnamount)")
                }
                let maxFeeRate = try feeRate(params, index: 1, policy: hub.policy)
                do {
                    let txid = try hub.changingMempool { try chain.submit(transaction, maxFeeRate: maxFeeRate) }
                    return .string(txid.hex)
                } catch let rejection as MempoolRejection {
                    throw RPCError(code: rejection.sendRawTransactionCode, message: rejection.sendRawTransactionMessage)
                } catch {
                    throw rpcError(error)
                }
            },
            RPCMethod("testmempoolaccept",
                      summary: "Returns result of mempool acceptance tests indicating if raw transaction(s) (serialized, hex-encoded) would be accepted by mempool.",
                      arguments: [RPCArgument("rawtxs", .array, "An array of hex strings of raw transactions."),
                                  RPCArgument("maxfeerate", .amount, default: "\"0.10\"",
                                              "Reject transactions whose fee rate is higher than the specified value, expressed in BTC/kvB.")],
                      result: "[...]    (json array) The result of the mempool acceptance test for each raw transaction in the input array.",
                      examples: [.cli("'[\"signedhex\"]'"), .rpc("[\"signedhex\"]")]) { params in
                guard case .array(let raw)? = params[0], (1...maxPackageCount).contains(raw.count) else {
                    throw RPCError.invalidParameter("Array must contain between 1 and \(maxPackageCount) transactions.")
                }
                let maxFeeRate = try feeRate(params, index: 1, policy: hub.policy)
                var transactions: [Transaction] = []
                for element in raw {
                    guard case .string(let hex) = element else { throw RPCError.type("JSON value is not a string as expected") }
                    guard let transaction = try? Transaction(hex: hex) else {
                        throw RPCError.deserialization("TX decode failed: \(hex) Make sure the tx has at least one input.")
                    }
                    transactions.append(transaction)
                }
                return try PackageAcceptance(chain: chain, maxFeeRate: maxFeeRate).results(transactions)
            },
        ]
    }

    private static func rawTransaction(_ params: RPCParameters, chain: RegtestChain, txIndex: Bool) throws -> OrderedJSON {
        let txid = try params.txid(0, name: "parameter 1")
        if txid == RegtestParameters.genesisBlock.transactions[0].txid {
            throw RPCError.invalidAddressOrKey("The genesis block coinbase is not considered an ordinary transaction and cannot be retrieved")
        }
        let verbosity = try params.verbosity(1, default: 0)
        var givenBlock: ChainBlock?
        if params[2] != nil {
            let hash = try params.blockHash(2, name: "parameter 3")
            guard let block = chain.block(hash) else { throw RPCError.invalidAddressOrKey("Block hash not found") }
            givenBlock = block
        }
        var found = givenBlock.map { chain.transaction(txid, inBlock: $0.hash) } ?? chain.transaction(txid)
        // Without -txindex Core finds a confirmed transaction only in a block it is given.
        if !txIndex, givenBlock == nil, case .block = found?.location { found = nil }
        guard let found else {
            let reason = givenBlock != nil ? "No such transaction found in the provided block"
                : txIndex ? "No such mempool or blockchain transaction"
                : "No such mempool transaction. Use -txindex or provide a block hash to enable blockchain transaction queries"
            throw RPCError.invalidAddressOrKey(reason + ". Use gettransaction for wallet transactions.")
        }
        let transaction = found.transaction
        if verbosity <= 0 { return .string(transaction.serialized.hex) }
        var object = OrderedJSONObject()
        if let givenBlock { object.add("in_active_chain", .bool(givenBlock.confirmations >= 0)) }
        var spent: [Coin]?
        var blockFields = OrderedJSONObject()
        if case .block(let hash, _, let confirmations, let time) = found.location {
            if verbosity >= 2, !transaction.isCoinbase, let block = chain.block(hash),
               let index = block.block.transactions.firstIndex(where: { $0.txid == txid }) {
                spent = block.spentCoins?[index]
            }
            blockFields.add("blockhash", .string(hash.hex))
            if confirmations > 0 {
                blockFields.add("confirmations", .int(confirmations))
                blockFields.add("time", .int(time))
                blockFields.add("blocktime", .int(time))
            } else {
                blockFields.add("confirmations", 0)
            }
        }
        object.add(contentsOf: TransactionJSON.json(transaction, spentCoins: spent, includePrevouts: spent != nil))
        object.add(contentsOf: blockFields.json)
        return object.json
    }

    /// Core's `DecodeHexTx` failure is one message for every cause.
    static func decode(_ hex: String) throws(RPCError) -> Transaction {
        guard let transaction = try? Transaction(hex: hex) else {
            throw RPCError.deserialization("TX decode failed. Make sure the tx has at least one input.")
        }
        return transaction
    }

    /// `maxfeerate` in sat/kvB (Core's `ParseFeeRate`), the policy default when absent.
    static func feeRate(_ params: RPCParameters, index: Int, policy: MempoolPolicy) throws(RPCError) -> Int64 {
        guard let rate = try params.amount(index) else { return policy.defaultMaxFeeRate }
        guard rate < CoreAmount.satoshisPerCoin else {
            throw RPCError.invalidParameter("Fee rates larger than or equal to 1BTC/kvB are not accepted")
        }
        return rate
    }

    /// Core's `IsUnspendable() || !HasValidOps()`, as far as `maxburnamount` cares: OP_RETURN
    /// outputs and scripts too large to ever run.
    static func isUnspendable(_ script: Script) -> Bool {
        script.bytes.first == 0x6a || script.count > 10_000
    }
}
