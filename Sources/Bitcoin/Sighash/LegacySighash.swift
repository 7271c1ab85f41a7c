/// The original (pre-segwit) signature hash, reproduced exactly as Bitcoin Core's
/// `SignatureHash` computes it for `SigVersion::BASE`, quirks included, because a signature
/// is only valid if every node arrives at the same 32 bytes.
///
/// The caller passes the script code as the interpreter would (the part after the last
/// executed OP_CODESEPARATOR, with the signature itself already removed by FindAndDelete);
/// this type strips any remaining OP_CODESEPARATORs, as Core's serializer does.
public struct LegacySighash: Sendable {
    public let transaction: Transaction

    public init(transaction: Transaction) {
        self.transaction = transaction
    }

    /// What Core returns for SIGHASH_SINGLE when the input has no output of the same index:
    /// the number 1 as a little-endian uint256 (the bytes 01 00 … 00). It is signed as if it
    /// were a real digest, so such a signature can be replayed for any transaction.
    public static let singleWithoutOutputValue: [UInt8] = [1] + [UInt8](repeating: 0, count: 31)

    /// The 32-byte digest to sign, in internal byte order (Core displays it reversed).
    ///
    /// - Parameter hashType: the full 32-bit value; only its low bits choose the algorithm,
    ///   but all four bytes are hashed.
    public func hash(inputIndex: Int, scriptCode: Script, hashType: SighashType) throws -> [UInt8] {
        guard transaction.inputs.indices.contains(inputIndex) else {
            throw BitcoinError.invalidSighash("input index \(inputIndex) out of range (\(transaction.inputs.count) inputs)")
        }
        if hashType.legacyIsSingle && inputIndex >= transaction.outputs.count {
            return Self.singleWithoutOutputValue
        }
        return SHA256.doubleHash(preimage(inputIndex: inputIndex, scriptCode: scriptCode, hashType: hashType))
    }

    /// The serialization Core hashes (CTransactionSignatureSerializer followed by the hash type).
    private func preimage(inputIndex: Int, scriptCode: Script, hashType: SighashType) -> [UInt8] {
        let anyoneCanPay = hashType.isAnyoneCanPay
        let none = hashType.legacyIsNone
        let single = hashType.legacyIsSingle
        var writer = ByteWriter(capacity: 256)
        writer.write(transaction.version)

        // ANYONECANPAY keeps only the input being signed.
        let signedInputs = anyoneCanPay ? [inputIndex] : Array(transaction.inputs.indices)
        writer.writeCompactSize(signedInputs.count)
        for index in signedInputs {
            let input = transaction.inputs[index]
            input.previousOutput.write(to: &writer)
            if index == inputIndex {
                Self.writeScriptCode(scriptCode.bytes, to: &writer)
            } else {
                writer.writeCompactSize(0) // other inputs' scripts are blanked
            }
            // NONE and SINGLE let others update their inputs, so their sequences are not signed.
            writer.write(index != inputIndex && (none || single) ? UInt32(0) : input.sequence)
        }

        if none {
            writer.writeCompactSize(0)
        } else if single {
            // Outputs before ours are kept as "null" outputs (value -1, empty script) so the
            // signed output stays at its index.
            writer.writeCompactSize(inputIndex + 1)
            for index in 0...inputIndex {
                if index == inputIndex {
                    transaction.outputs[index].write(to: &writer)
                } else {
                    writer.write(Int64(-1))
                    writer.writeCompactSize(0)
                }
            }
        } else {
            writer.writeCompactSize(transaction.outputs.count)
            for output in transaction.outputs { output.write(to: &writer) }
        }
        writer.write(transaction.lockTime)
        writer.write(hashType.rawValue)
        return writer.bytes
    }

    /// Core's `SerializeScriptCode`: walks the script with `GetOp` and drops every
    /// OP_CODESEPARATOR. It is done on raw bytes, mirroring `GetOp`'s cursor, because Core
    /// keeps that behaviour even for scripts whose last push runs past the end: the length
    /// prefix counts the whole script while only the bytes up to the failed parse are written.
    static func writeScriptCode(_ script: [UInt8], to writer: inout ByteWriter) {
        var cursor = 0
        var separators = 0
        while let opcode = nextOpcode(in: script, at: &cursor) {
            if opcode == Opcode.codeSeparator.byte { separators += 1 }
        }
        writer.writeCompactSize(script.count - separators)

        cursor = 0
        var segmentStart = 0
        while let opcode = nextOpcode(in: script, at: &cursor) {
            if opcode == Opcode.codeSeparator.byte {
                writer.write(script[segmentStart..<cursor - 1])
                segmentStart = cursor
            }
        }
        if segmentStart != script.count {
            writer.write(script[segmentStart..<cursor])
        }
    }

    /// Core's `GetScriptOp`: returns the opcode byte and moves `cursor` past it and its data,
    /// or returns nil, leaving `cursor` wherever Core's parser would have stopped.
    private static func nextOpcode(in script: [UInt8], at cursor: inout Int) -> UInt8? {
        guard cursor < script.count else { return nil }
        let opcode = script[cursor]
        cursor += 1
        guard opcode <= 0x4e else { return opcode }
        var size: Int
        switch opcode {
        case 0x4c:
            guard script.count - cursor >= 1 else { return nil }
            size = Int(script[cursor])
            cursor += 1
        case 0x4d:
            guard script.count - cursor >= 2 else { return nil }
            size = Int(script[cursor]) | Int(script[cursor + 1]) << 8
            cursor += 2
        case 0x4e:
            guard script.count - cursor >= 4 else { return nil }
            size = 0
            for i in 0..<4 { size |= Int(script[cursor + i]) << (8 * i) }
            cursor += 4
        default:
            size = Int(opcode)
        }
        guard script.count - cursor >= size else { return nil }
        cursor += size
        return opcode
    }
}
