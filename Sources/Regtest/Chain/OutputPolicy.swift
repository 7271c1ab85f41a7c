import Bitcoin

/// Output-level relay policy: witness programs and dust thresholds as Core's policy.cpp has them.
enum OutputPolicy {
    /// Core's `IsWitnessProgram`: a version opcode (OP_0, OP_1...OP_16) and one 2...40 byte push.
    static func isWitnessProgram(_ script: Script) -> Bool {
        let bytes = script.bytes
        guard (4...42).contains(bytes.count) else { return false }
        guard bytes[0] == 0x00 || (0x51...0x60).contains(bytes[0]) else { return false }
        return Int(bytes[1]) + 2 == bytes.count
    }

    /// Core's `GetDustThreshold`: the cost, at the dust relay fee rate, of the output plus
    /// a typical input spending it (67 vbytes for witness programs, 148 otherwise).
    static func dustThreshold(_ output: TransactionOutput, dustRelayFeeRate: Int64) -> Int64 {
        if UTXOSet.isUnspendable(output.scriptPubKey) { return 0 }
        var writer = ByteWriter()
        writer.write(output.value)
        writer.writeVarBytes(output.scriptPubKey.bytes)
        let spendSize = isWitnessProgram(output.scriptPubKey) ? 32 + 4 + 1 + 107 / 4 + 4 : 32 + 4 + 1 + 107 + 4
        return Money.fee(ratePerKvB: dustRelayFeeRate, vsize: writer.bytes.count + spendSize)
    }

    static func isDust(_ output: TransactionOutput, dustRelayFeeRate: Int64) -> Bool {
        output.value < dustThreshold(output, dustRelayFeeRate: dustRelayFeeRate)
    }

    /// Whether a scriptSig holds only data pushes (Core's `IsPushOnly`).
    static func isPushOnly(_ script: Script) -> Bool {
        guard let opcodes = try? script.opcodes() else { return false }
        return opcodes.allSatisfy { $0.pushedData != nil }
    }
}
