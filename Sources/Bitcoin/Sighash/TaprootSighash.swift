/// The BIP341 signature hash for taproot inputs, key path and (with the BIP342 extension)
/// script path.
///
/// Unlike earlier versions it commits to the amounts and scriptPubKeys of *all* outputs
/// being spent, so a signer cannot be tricked about fees or input types; the value is
/// therefore built from the transaction and every spent output, and the transaction-wide
/// digests are computed once and reused for each input.
public struct TaprootSighash: Sendable {
    public let transaction: Transaction
    /// The outputs the inputs spend, one per input in the same order.
    public let spentOutputs: [TransactionOutput]

    /// BIP341 sha_prevouts, sha_amounts, sha_scriptpubkeys, sha_sequences, sha_outputs
    /// (single SHA-256 each).
    public let shaPrevouts: [UInt8]
    public let shaAmounts: [UInt8]
    public let shaScriptPubKeys: [UInt8]
    public let shaSequences: [UInt8]
    public let shaOutputs: [UInt8]

    /// The BIP342 extension for a script-path spend: which leaf is executed and where the
    /// last executed OP_CODESEPARATOR was.
    public struct ScriptPath: Hashable, Sendable {
        /// "No OP_CODESEPARATOR executed yet" (BIP342 codesep_pos).
        public static let noCodeSeparator: UInt32 = 0xffff_ffff

        public let leafHash: [UInt8]
        /// The opcode position (not byte offset) of the last executed OP_CODESEPARATOR.
        public let codeSeparatorPosition: UInt32

        public init(leafHash: [UInt8], codeSeparatorPosition: UInt32 = ScriptPath.noCodeSeparator) throws {
            guard leafHash.count == 32 else {
                throw BitcoinError.invalidSighash("a tapleaf hash is 32 bytes, got \(leafHash.count)")
            }
            self.leafHash = leafHash
            self.codeSeparatorPosition = codeSeparatorPosition
        }

        public init(leaf: TapLeaf, codeSeparatorPosition: UInt32 = ScriptPath.noCodeSeparator) {
            leafHash = leaf.hash
            self.codeSeparatorPosition = codeSeparatorPosition
        }
    }

    /// - Throws: `BitcoinError.invalidSighash` unless there is exactly one spent output per
    ///   input, since BIP341 signatures commit to all of them.
    public init(transaction: Transaction, spentOutputs: [TransactionOutput]) throws {
        guard spentOutputs.count == transaction.inputs.count else {
            throw BitcoinError.invalidSighash(
                "taproot needs every spent output: \(transaction.inputs.count) inputs, \(spentOutputs.count) spent outputs")
        }
        self.transaction = transaction
        self.spentOutputs = spentOutputs
        let digests = TransactionDigests(transaction)
        shaPrevouts = digests.prevouts
        shaSequences = digests.sequences
        shaOutputs = digests.outputs
        var amounts = ByteWriter(capacity: 8 * spentOutputs.count)
        var scriptPubKeys = ByteWriter()
        for output in spentOutputs {
            amounts.write(output.value)
            scriptPubKeys.writeVarBytes(output.scriptPubKey.bytes)
        }
        shaAmounts = SHA256.hash(amounts.bytes)
        shaScriptPubKeys = SHA256.hash(scriptPubKeys.bytes)
    }

    /// The bytes that are tagged-hashed: the epoch byte 0x00 followed by BIP341's SigMsg and,
    /// for a script path, BIP342's extension (the BIP341 wallet vectors call this `sigMsg`).
    ///
    /// - Parameters:
    ///   - annex: the annex witness element including its 0x50 prefix, when the input has one.
    ///   - scriptPath: nil for a key-path spend.
    /// - Throws: `BitcoinError.invalidSighash` for a hash type taproot does not define, a
    ///   SINGLE with no output at the input's index, a bad annex or an input out of range.
    public func signatureMessage(inputIndex: Int, hashType: SighashType = .default, annex: [UInt8]? = nil,
                                 scriptPath: ScriptPath? = nil) throws -> [UInt8] {
        guard hashType.isValidForTaproot else {
            throw BitcoinError.invalidSighash("hash type \(hashType) is not defined for taproot")
        }
        guard transaction.inputs.indices.contains(inputIndex) else {
            throw BitcoinError.invalidSighash("input index \(inputIndex) out of range (\(transaction.inputs.count) inputs)")
        }
        if let annex, annex.first != 0x50 {
            throw BitcoinError.invalidSighash("an annex starts with 0x50")
        }
        let outputType = hashType.taprootOutputType
        if outputType == SighashType.single.rawValue && inputIndex >= transaction.outputs.count {
            throw BitcoinError.invalidSighash("SIGHASH_SINGLE for input \(inputIndex) but only \(transaction.outputs.count) outputs")
        }

        var writer = ByteWriter(capacity: 256)
        writer.write(UInt8(0x00)) // sighash epoch
        writer.write(hashType.byte)
        writer.write(transaction.version)
        writer.write(transaction.lockTime)
        if !hashType.isAnyoneCanPay {
            writer.write(shaPrevouts)
            writer.write(shaAmounts)
            writer.write(shaScriptPubKeys)
            writer.write(shaSequences)
        }
        if outputType == SighashType.all.rawValue {
            writer.write(shaOutputs)
        }
        let extFlag: UInt8 = scriptPath == nil ? 0 : 1
        writer.write(extFlag * 2 + (annex == nil ? 0 : 1)) // spend_type
        if hashType.isAnyoneCanPay {
            let input = transaction.inputs[inputIndex]
            input.previousOutput.write(to: &writer)
            spentOutputs[inputIndex].write(to: &writer)
            writer.write(input.sequence)
        } else {
            writer.write(UInt32(inputIndex))
        }
        if let annex {
            var annexWriter = ByteWriter(capacity: annex.count + 9)
            annexWriter.writeVarBytes(annex)
            writer.write(SHA256.hash(annexWriter.bytes))
        }
        if outputType == SighashType.single.rawValue {
            var output = ByteWriter()
            transaction.outputs[inputIndex].write(to: &output)
            writer.write(SHA256.hash(output.bytes))
        }
        if let scriptPath {
            writer.write(scriptPath.leafHash)
            writer.write(UInt8(0x00)) // key_version 0: BIP340 keys
            writer.write(scriptPath.codeSeparatorPosition)
        }
        return writer.bytes
    }

    /// The 32-byte digest a BIP340 signature signs: TaggedHash("TapSighash", message).
    public func hash(inputIndex: Int, hashType: SighashType = .default, annex: [UInt8]? = nil,
                     scriptPath: ScriptPath? = nil) throws -> [UInt8] {
        TaggedHash.hash(tag: "TapSighash",
                        try signatureMessage(inputIndex: inputIndex, hashType: hashType, annex: annex, scriptPath: scriptPath))
    }
}
