import Bitcoin

/// Hub controls that let a test world hurt: what a real miner and a real mempool can do to
/// a transaction and the hub would otherwise never do (see testnet/README.md, "Controls
/// that can hurt"). None is more lenient than Core v31 plus a miner: forced mining still
/// obeys consensus, the rest only take away.
extension BitcoinRPCMethods {
    static func hubHarm(_ hub: HubChain) -> [RPCMethod] {
        let chain = hub.chain
        return [
            RPCMethod("hub_mine_transaction",
                      summary: "Mines a block holding the transaction now, bypassing mempool policy (non-standard scripts, "
                          + "any fee, held parents) but not consensus. Mempool spends of the same outputs are evicted.",
                      arguments: [RPCArgument("hexstring", .hex, "The raw transaction, hex-encoded"),
                                  RPCArgument("address", .string, default: "", "Where the coinbase pays; the hub's own address by default")],
                      result: "{...}    (json object) txid, wtxid, blockhash, height",
                      examples: [.cli("\"hexstring\""), .rpc("\"hexstring\"")]) { params in
                let transaction = try decode(params.string(0) ?? "")
                let payout = try hubPayoutScript(params.string(1), hub: hub)
                do {
                    let hash = try hub.changingMempool { try chain.mineTransaction(transaction, to: payout) }
                    var result = OrderedJSONObject()
                    result.add("txid", .string(transaction.txid.hex))
                    result.add("wtxid", .string(transaction.wtxid.hex))
                    result.add("blockhash", .string(hash.hex))
                    result.add("height", .int(chain.block(hash)?.height ?? chain.height))
                    return result.json
                } catch let rejection as ConsensusRejection {
                    // Core's RPC_VERIFY_REJECTED, as submitblock's callers see a bad block.
                    throw RPCError(code: -26, message: rejection.message)
                } catch {
                    throw rpcError(error)
                }
            },
            RPCMethod("hub_hold_transaction",
                      summary: "Keeps a mempool transaction (and its descendants) out of every block the hub mines until "
                          + "hub_release_transaction; it stays in the mempool.",
                      arguments: [RPCArgument("txid", .hex, "The transaction id (must be in mempool)")],
                      result: "{...}    (json object) txid, and every held txid",
                      examples: [.cli("\"mytxid\""), .rpc("\"mytxid\"")]) { params in
                let txid = try params.txid(0)
                guard chain.hold(txid) else { throw RPCError.invalidAddressOrKey("Transaction not in mempool") }
                return heldJSON(txid, chain: chain)
            },
            RPCMethod("hub_release_transaction",
                      summary: "Lets a transaction held by hub_hold_transaction into blocks again.",
                      arguments: [RPCArgument("txid", .hex, "The transaction id")],
                      result: "{...}    (json object) txid, and every txid still held",
                      examples: [.cli("\"mytxid\""), .rpc("\"mytxid\"")]) { params in
                let txid = try params.txid(0)
                guard chain.release(txid) else { throw RPCError.invalidAddressOrKey("Transaction not held") }
                return heldJSON(txid, chain: chain)
            },
            RPCMethod("hub_setblockmaxweight",
                      summary: "Sets the weight limit of the blocks the hub mines (Core's -blockmaxweight, coinbase reserve "
                          + "included); mempool transactions that do not fit wait, highest ancestor-package fee rate first.",
                      arguments: [RPCArgument("weight", .number, "The limit in weight units, "
                                      + "\(RegtestChain.minimumBlockMaxWeight)...\(RegtestParameters.maxBlockWeight)")],
                      result: "{...}    (json object) the limit now in force",
                      examples: [.cli("20000"), .rpc("20000")]) { params in
                do {
                    try chain.setBlockMaxWeight(try params.int(0, default: 0))
                } catch {
                    throw RPCError.invalidParameter("\(error)")
                }
                return .object(["blockmaxweight": .int(chain.blockMaxWeight)])
            },
            RPCMethod("hub_setmempoolminfee",
                      summary: "Raises the mempool's minimum fee rate, as a full mempool does: transactions below it are "
                          + "evicted (lowest descendant score first) and new ones refused with 'mempool min fee not met'. "
                          + "0 (or anything at or below minrelaytxfee) lifts it.",
                      arguments: [RPCArgument("sat_per_kvb", .number, "The minimum in sat/kvB")],
                      result: "{...}    (json object) mempoolminfee (BTC/kvB, as getmempoolinfo reports it), evicted txids",
                      examples: [.cli("5000"), .rpc("5000")]) { params in
                let rate = try params.int(0, default: 0)
                guard rate >= 0 else { throw RPCError.invalidParameter("sat_per_kvb must not be negative") }
                let evicted = hub.changingMempool { chain.setMempoolMinFee(Int64(rate)) }
                return .object(["mempoolminfee": .amount(chain.mempoolMinFeeRate),
                                "evicted": .array(evicted.map { .string($0.hex) })])
            },
        ]
    }

    private static func heldJSON(_ txid: TransactionID, chain: RegtestChain) -> OrderedJSON {
        .object(["txid": .string(txid.hex), "held": .array(chain.heldTransactions.map { .string($0.hex) })])
    }

    /// The coinbase's script: the address given, or the hub's own.
    static func hubPayoutScript(_ address: String?, hub: HubChain) throws(RPCError) -> Script {
        guard let address, !address.isEmpty else { return hub.wallet.script }
        guard let decoded = try? Address(address, network: .regtest) else {
            throw RPCError.invalidAddressOrKey("Error: Invalid address")
        }
        return decoded.script
    }
}
