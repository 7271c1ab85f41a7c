import Bitcoin
import Transport

extension BitcoinRPCMethods {
    /// `gettxspendingprevout`, as Core v31 with `-txospenderindex=1`: the mempool is asked
    /// first, then (unless `mempool_only`, whose default is false when the index exists)
    /// the active chain's spender index, whose answers carry the block. ElectrumX 2.0 calls
    /// it with `mempool_only=false` to answer `blockchain.outpoint.subscribe`.
    static func spending(_ hub: HubChain) -> [RPCMethod] {
        let chain = hub.chain
        return [
            RPCMethod("gettxspendingprevout",
                      summary: "Scans the mempool (and the txospenderindex, if available) to find transactions spending any of the given outputs",
                      arguments: [RPCArgument("outputs", .array, "The transaction outputs that we want to check, and within each, the txid (string) vout (numeric)."),
                                  RPCArgument("options", .object, default: "", "")],
                      result: "[...]    (json array)",
                      examples: [.cli("\"[{\\\"txid\\\":\\\"a08e6907dbbd3d809776dbfc5d82e371b764ed838b5655e72f463568df1aadf0\\\",\\\"vout\\\":3}]\""),
                                 .rpc("\"[{\\\"txid\\\":\\\"a08e6907dbbd3d809776dbfc5d82e371b764ed838b5655e72f463568df1aadf0\\\",\\\"vout\\\":3}]\"")]) { params in
                guard case .array(let outputs)? = params[0], !outputs.isEmpty else {
                    throw RPCError.invalidParameter("Invalid parameter, outputs are missing")
                }
                let options = try checkedObject(params[1] ?? .object([:]),
                                                expected: ["mempool_only": "bool", "return_spending_tx": "bool"], allowNull: true)
                let mempoolOnly = options["mempool_only"]?.boolValue ?? false
                let returnSpendingTransaction = options["return_spending_tx"]?.boolValue ?? false
                var outpoints: [OutPoint] = []
                for element in outputs {
                    guard case .object = element else {
                        throw RPCError.misc("JSON value of type \(RPCArgument.typeName(element)) is not of expected type object")
                    }
                    let output = try checkedObject(element, expected: ["txid": "string", "vout": "number"], allowNull: false)
                    let bytes = try RPCParameters.hashHex(output["txid"]?.stringValue ?? "", name: "txid")
                    let vout = try RPCParameters.integer(output["vout"] ?? .null)
                    guard vout <= Int(Int32.max), vout >= Int(Int32.min) else { throw RPCError.misc("JSON integer out of range") }
                    guard vout >= 0 else { throw RPCError.invalidParameter("Invalid parameter, vout cannot be negative") }
                    outpoints.append(OutPoint(txid: try! TransactionID(bytes: bytes.reversed()), index: UInt32(vout)))
                }
                return .array(outpoints.map { outpoint in
                    var reply = OrderedJSONObject()
                    reply.add("txid", .string(outpoint.txid.hex))
                    reply.add("vout", .int(Int(outpoint.index)))
                    if let spender = chain.spender(of: outpoint, mempoolOnly: mempoolOnly) {
                        reply.add("spendingtxid", .string(spender.transaction.txid.hex))
                        if returnSpendingTransaction { reply.add("spendingtx", .string(spender.transaction.serialized.hex)) }
                        if let block = spender.blockHash { reply.add("blockhash", .string(block.hex)) }
                    }
                    return .object(reply.members)
                })
            },
        ]
    }

    /// Core's `RPCTypeCheckObj` with `fStrict`: each expected member has its JSON type
    /// (absent or null allowed only with `allowNull`), and no other member is present.
    static func checkedObject(_ value: JSONValue, expected: [String: String],
                              allowNull: Bool) throws(RPCError) -> [String: JSONValue] {
        guard case .object(let members) = value else {
            throw RPCError.misc("JSON value of type \(RPCArgument.typeName(value)) is not of expected type object")
        }
        for name in expected.keys.sorted() {
            let member = members[name] ?? .null
            if member == .null {
                if allowNull { continue }
                throw RPCError.type("Missing \(name)")
            }
            let actual = RPCArgument.typeName(member)
            guard actual == expected[name] else {
                throw RPCError.type("JSON value of type \(actual) for field \(name) is not of expected type \(expected[name]!)")
            }
        }
        for name in members.keys.sorted() where expected[name] == nil { throw RPCError.type("Unexpected key \(name)") }
        return members
    }
}
