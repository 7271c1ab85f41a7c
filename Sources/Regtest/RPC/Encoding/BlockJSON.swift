import Bitcoin

/// Core's `blockheaderToJSON` and `blockToJSON` (v31 shapes, `coinbase_tx` included).
enum BlockJSON {
    static func header(_ block: ChainBlock) -> OrderedJSON {
        let header = block.block.header
        var object = OrderedJSONObject()
        object.add("hash", .string(block.hash.hex))
        object.add("confirmations", .int(block.confirmations))
        object.add("height", .int(block.height))
        object.add("version", .int(header.version))
        object.add("versionHex", .string(hex32(UInt32(bitPattern: header.version))))
        object.add("merkleroot", .string(Array(header.merkleRoot.reversed()).hex))
        object.add("time", .int(header.time))
        object.add("mediantime", .int(block.medianTimePast))
        object.add("nonce", .int(header.nonce))
        object.add("bits", .string(hex32(header.bits)))
        object.add("target", .string(target(bits: header.bits)))
        object.add("difficulty", .number(CoreNumber.format(CoreNumber.difficulty(bits: header.bits))))
        object.add("chainwork", .string(chainWork(block.chainWork)))
        object.add("nTx", .int(block.block.transactions.count))
        if block.height > 0 { object.add("previousblockhash", .string(header.previousBlockHash.hex)) }
        if let next = block.nextBlockHash { object.add("nextblockhash", .string(next.hex)) }
        return object.json
    }

    /// `getblock` at verbosity 1 (txids), 2 (decoded transactions with fees) or 3 (and prevouts).
    static func block(_ block: ChainBlock, verbosity: Int) -> OrderedJSON {
        var object = OrderedJSONObject()
        object.add(contentsOf: header(block))
        object.add("strippedsize", .int(block.block.serialized(includingWitness: false).count))
        object.add("size", .int(block.block.serialized.count))
        object.add("weight", .int(block.block.weight))
        if let coinbase = block.block.transactions.first, let input = coinbase.inputs.first {
            var summary = OrderedJSONObject()
            summary.add("version", .int(coinbase.version))
            summary.add("locktime", .int(coinbase.lockTime))
            summary.add("sequence", .int(input.sequence))
            summary.add("coinbase", .string(input.scriptSig.bytes.hex))
            if let reserved = input.witness.stack.first { summary.add("witness", .string(reserved.hex)) }
            object.add("coinbase_tx", summary.json)
        }
        let transactions = block.block.transactions
        if verbosity <= 1 {
            object.add("tx", .array(transactions.map { .string($0.txid.hex) }))
        } else {
            object.add("tx", .array(transactions.enumerated().map { index, transaction in
                TransactionJSON.json(transaction, spentCoins: block.spentCoins?[index], includePrevouts: verbosity >= 3)
            }))
        }
        return object.json
    }

    static func hex32(_ value: UInt32) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 8 - text.count) + text
    }

    static func target(bits: UInt32) -> String {
        (Target(bits: bits) ?? Target(bigEndianBytes: [UInt8](repeating: 0, count: 32))).description
    }

    /// Cumulative work as Core prints a uint256: 64 hex digits.
    static func chainWork(_ work: Int) -> String {
        let text = String(work, radix: 16)
        return String(repeating: "0", count: max(0, 64 - text.count)) + text
    }
}
