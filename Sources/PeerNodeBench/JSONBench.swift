import Transport

/// How fast `JSONParser` reads the answers a client daemon parses most (issue 21's swap
/// burst profile: Bitcoin Core's JSON-RPC answers were about half of its JSON parsing).
/// The shapes are Bitcoin Core's; the contents are made up (the parser reads bytes, not
/// meaning). The bound is validating the same bytes as UTF-8 (`String(validating:)`),
/// which any reader of the text must at least do.
struct JSONBench {
    struct Row {
        let name: String
        let bytes: Int
        let parseMBps: Double
        let validateMBps: Double
    }

    let rounds: Int

    static func inputs() -> [(String, [UInt8])] {
        func hex(_ count: Int, seed: Int) -> String {
            let digits = Array("0123456789abcdef")
            var text = ""
            text.reserveCapacity(count)
            var state = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 | 1
            for _ in 0..<count {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                text.append(digits[Int(state & 15)])
            }
            return text
        }
        let txids = (0..<200).map { "\"\(hex(64, seed: $0))\"" }.joined(separator: ",")
        let mempool = "{\"result\":[\(txids)],\"error\":null,\"id\":\"41\"}"
        let block = "{\"result\":\"\(hex(8_000, seed: 7))\",\"error\":null,\"id\":\"42\"}"
        let info = """
            {"result":{"chain":"regtest","blocks":1289,"headers":1289,"bestblockhash":"\(hex(64, seed: 9))",\
            "bits":"207fffff","target":"7fffff0000000000000000000000000000000000000000000000000000000000",\
            "difficulty":4.656542373906925e-10,"time":1733456789,"mediantime":1733456700,\
            "verificationprogress":1,"initialblockdownload":false,"chainwork":"\(hex(64, seed: 10))",\
            "size_on_disk":412345,"pruned":false,"warnings":[]},"error":null,"id":"43"}
            """
        return [("getrawmempool, 200 txids", Array(mempool.utf8)), ("getblock, raw hex", Array(block.utf8)),
                ("getblockchaininfo", Array(info.utf8))]
    }

    func run() throws -> [Row] {
        try Self.inputs().map { name, bytes in
            var best = (parse: Double.infinity, validate: Double.infinity)
            for _ in 0..<3 {
                var kept = 0
                let parse = try timed {
                    for _ in 0..<rounds {
                        if case .object(let members) = try JSONParser.parse(bytes) { kept &+= members.count }
                    }
                }
                let validate = timed {
                    for _ in 0..<rounds {
                        kept &+= String(validating: bytes, as: UTF8.self)?.utf8.count ?? 0
                    }
                }
                precondition(kept > 0)
                best = (min(best.parse, parse), min(best.validate, validate))
            }
            let megabytes = Double(bytes.count * rounds) / 1e6
            return Row(name: name, bytes: bytes.count, parseMBps: megabytes / best.parse, validateMBps: megabytes / best.validate)
        }
    }

    static func report(_ rows: [Row], into table: inout BenchTable) {
        for (index, row) in rows.enumerated() {
            table.add([(index == 0 ? "7. JSON MB/s, " : "   JSON MB/s, ") + "\(row.name) (\(row.bytes) B)",
                       fixed(row.parseMBps), fixed(row.validateMBps), percent(row.parseMBps / row.validateMBps), "", ""])
        }
    }

    static func printNotes() {
        print("7: JSONParser.parse of Bitcoin Core-shaped JSON-RPC answers, best of 3 rounds;")
        print("   bound = String(validating:as: UTF8.self) of the same bytes (no goal: issue 21's swap burst).")
    }
}
