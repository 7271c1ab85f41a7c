import Bitcoin

/// Core's `TxToUniv`: a decoded transaction with its members in Core's order. When the
/// coins it spent are known (a confirmed non-coinbase transaction with undo data), `fee` is
/// added, and with `includePrevouts` each input gets a `prevout` object (verbosity 3 of
/// `getblock`, 2 of `getrawtransaction`).
enum TransactionJSON {
    static func json(_ transaction: Transaction, spentCoins: [Coin]? = nil, includePrevouts: Bool = false) -> OrderedJSON {
        var object = OrderedJSONObject()
        object.add("txid", .string(transaction.txid.hex))
        object.add("hash", .string(transaction.wtxid.hex))
        object.add("version", .int(transaction.version))
        object.add("size", .int(transaction.serialized.count))
        object.add("vsize", .int(transaction.virtualSize))
        object.add("weight", .int(transaction.weight))
        object.add("locktime", .int(transaction.lockTime))
        let coins = spentCoins.flatMap { $0.count == transaction.inputs.count && !transaction.isCoinbase ? $0 : nil }
        var inputs: [OrderedJSON] = []
        for (index, input) in transaction.inputs.enumerated() {
            var entry = OrderedJSONObject()
            if transaction.isCoinbase {
                entry.add("coinbase", .string(input.scriptSig.bytes.hex))
            } else {
                entry.add("txid", .string(input.previousOutput.txid.hex))
                entry.add("vout", .int(input.previousOutput.index))
                entry.add("scriptSig", .object(["asm": .string(ScriptAssembly.assembly(input.scriptSig, decodeSighash: true)),
                                                "hex": .string(input.scriptSig.bytes.hex)]))
            }
            if !input.witness.isEmpty {
                entry.add("txinwitness", .array(input.witness.stack.map { .string($0.hex) }))
            }
            if let coins, includePrevouts {
                let coin = coins[index]
                entry.add("prevout", .object(["generated": .bool(coin.isCoinbase), "height": .int(coin.height),
                                              "value": .amount(coin.output.value),
                                              "scriptPubKey": ScriptPubKeyJSON.json(coin.output.scriptPubKey)]))
            }
            entry.add("sequence", .int(input.sequence))
            inputs.append(entry.json)
        }
        object.add("vin", .array(inputs))
        object.add("vout", .array(transaction.outputs.enumerated().map { index, output in
            .object(["value": .amount(output.value), "n": .int(index),
                     "scriptPubKey": ScriptPubKeyJSON.json(output.scriptPubKey)])
        }))
        if let coins {
            let fee = coins.reduce(Int64(0)) { $0 + $1.output.value } - transaction.outputs.reduce(Int64(0)) { $0 + $1.value }
            object.add("fee", .amount(fee))
        }
        object.add("hex", .string(transaction.serialized.hex))
        return object.json
    }
}
