import Bitcoin

/// The hub's own control methods, named `hub_*` so they can never collide with Core's.
/// Tests and the swap harness drive the chain with them: fee estimates, mining on a
/// schedule or on demand, funding an address, and every balance for conservation checks.
extension BitcoinRPCMethods {
    static func hubControl(_ hub: HubChain) -> [RPCMethod] {
        let chain = hub.chain
        return [
            RPCMethod("hub_setfeeestimate",
                      summary: "Sets what estimatesmartfee answers for every target: a fee rate in sat/kvB, or null for no data.",
                      arguments: [RPCArgument("sat_per_kvb", .number, default: "null", "The fee rate; null: no estimate")],
                      result: "{...}    (json object) the estimate now served",
                      examples: [.cli("2000"), .rpc("2000")]) { params in
                if params[0] == nil {
                    chain.setFeeEstimate(.noData)
                } else {
                    let rate = try params.int(0, default: 0)
                    guard rate > 0 else { throw RPCError.invalidParameter("sat_per_kvb must be positive") }
                    chain.setFeeEstimate(.feeRate(Int64(rate)))
                }
                return feeEstimateJSON(chain.feeEstimate)
            },
            RPCMethod("hub_automine",
                      summary: "Mines one block every interval_seconds (0 stops), paying to the address or to the hub.",
                      arguments: [RPCArgument("interval_seconds", .number, "Seconds between blocks; 0 turns mining off"),
                                  RPCArgument("address", .string, default: "", "Where the coinbase pays; the hub's own address by default")],
                      result: "{...}    (json object) the schedule now running",
                      examples: [.cli("5"), .rpc("5")]) { params in
                let interval = try params.int(0, default: 0)
                guard interval >= 0 else { throw RPCError.invalidParameter("interval_seconds must not be negative") }
                if interval == 0 {
                    await hub.autoMiner.stop()
                    return .object(["interval_seconds": 0])
                }
                let payout = try payoutScript(params.string(1), hub: hub)
                hub.autoMiner.start(everySeconds: interval, to: payout)
                return .object(["interval_seconds": .int(interval),
                                "address": .string(ScriptPubKeyJSON.address(payout) ?? payout.bytes.hex)])
            },
            RPCMethod("hub_mine", summary: "Mines nblocks blocks now, paying to the address or to the hub.",
                      arguments: [RPCArgument("nblocks", .number, "How many blocks"),
                                  RPCArgument("address", .string, default: "", "Where the coinbases pay; the hub's own address by default")],
                      result: "[...]    (json array) the block hashes",
                      examples: [.cli("1"), .rpc("1")]) { params in
                let count = try params.int(0, default: 0)
                guard count >= 0 else { throw RPCError.invalidParameter("nblocks must not be negative") }
                let payout = try payoutScript(params.string(1), hub: hub)
                do {
                    return .array(try hub.changingMempool { try chain.mine(count, to: payout) }.map { .string($0.hex) })
                } catch {
                    throw rpcError(error)
                }
            },
            RPCMethod("hub_fund",
                      summary: "Pays amount BTC to address from the hub's mature coinbase coins (mining more when needed), "
                          + "then mines the payment into a block unless confirm is false.",
                      arguments: [RPCArgument("address", .string, "The address to fund"),
                                  RPCArgument("amount", .amount, "The amount in BTC"),
                                  RPCArgument("confirm", .bool, default: "true", "Mine a block holding the payment")],
                      result: "{...}    (json object) txid, vout, amount and (when confirmed) blockhash",
                      examples: [.cli("\"bcrt1q...\" 1.5"), .rpc("\"bcrt1q...\", 1.5")]) { params in
                guard let text = params.string(0), let address = try? Address(text, network: .regtest) else {
                    throw RPCError.invalidAddressOrKey("Error: Invalid address")
                }
                guard let amount = try params.amount(1), amount > 0 else {
                    throw RPCError.type("Amount out of range")
                }
                do {
                    return try hub.changingMempool {
                        let payment = try hub.wallet.pay(amount, to: address.script)
                        var result = OrderedJSONObject()
                        result.add("txid", .string(payment.txid.hex))
                        result.add("vout", 0)
                        result.add("amount", .amount(amount))
                        if params.bool(2, default: true) {
                            let hashes = try chain.mine(1, to: hub.wallet.script)
                            result.add("blockhash", .string(hashes[0].hex))
                        }
                        return result.json
                    }
                } catch {
                    throw rpcError(error)
                }
            },
            RPCMethod("hub_balances",
                      summary: "Reports every on-chain balance: unspent outputs of the active chain by address, "
                          + "their total, the hub's own spendable coins, and the mempool.",
                      result: "{...}    (json object)", examples: [.cli(""), .rpc("")]) { _ in
                balancesJSON(hub)
            },
        ]
    }

    static func feeEstimateJSON(_ estimate: FeeEstimate) -> OrderedJSON {
        switch estimate {
        case .noData: return .object(["sat_per_kvb": nil])
        case .feeRate(let rate): return .object(["sat_per_kvb": .int(rate)])
        }
    }

    private static func payoutScript(_ address: String?, hub: HubChain) throws(RPCError) -> Script {
        guard let address, !address.isEmpty else { return hub.wallet.script }
        guard let decoded = try? Address(address, network: .regtest) else {
            throw RPCError.invalidAddressOrKey("Error: Invalid address")
        }
        return decoded.script
    }

    /// Replays the active chain's outputs and spends (the chain keeps its UTXO set to
    /// itself), grouped by address, or by script hex for outputs without one. Provably
    /// unspendable outputs are left out, as Core leaves them out of its UTXO set.
    /// The tip is read once: the hub may mine while the replay runs, and a height or hash
    /// read again at the end would describe a block whose outputs were not counted (a
    /// whole subsidy "lost" to a caller checking conservation).
    static func balancesJSON(_ hub: HubChain) -> OrderedJSON {
        let chain = hub.chain
        let tip = chain.height
        var unspent: [OutPoint: TransactionOutput] = [:]
        for height in stride(from: 1, through: tip, by: 1) {
            guard let block = chain.block(atHeight: height)?.block else { continue }
            for transaction in block.transactions {
                if !transaction.isCoinbase { for input in transaction.inputs { unspent[input.previousOutput] = nil } }
                let txid = transaction.txid
                for (index, output) in transaction.outputs.enumerated() where !isUnspendable(output.scriptPubKey) {
                    unspent[OutPoint(txid: txid, index: UInt32(index))] = output
                }
            }
        }
        var byOwner: [String: Int64] = [:]
        for output in unspent.values {
            byOwner[ScriptPubKeyJSON.address(output.scriptPubKey) ?? output.scriptPubKey.bytes.hex, default: 0] += output.value
        }
        let mempool = chain.mempoolEntries().map(\.entry)
        return .object([
            "height": .int(tip),
            "bestblockhash": .string((chain.blockHash(atHeight: tip) ?? chain.tipHash).hex),
            "chain": .object([
                "total": .amount(byOwner.values.reduce(0, +)),
                "addresses": .object(byOwner.keys.sorted().map { OrderedJSON.Member($0, .amount(byOwner[$0]!)) }),
            ]),
            "hub": .object(["address": .string(hub.wallet.address), "spendable": .amount(hub.wallet.balance)]),
            "mempool": .object(["size": .int(mempool.count),
                                "fees": .amount(mempool.reduce(Int64(0)) { $0 + $1.fee })]),
        ])
    }
}
