/// The BIP143 signature hash for segwit version 0 inputs (P2WPKH, P2WSH and their P2SH
/// forms). The three transaction-wide hashes are computed once when the value is made and
/// reused for every input, which is what BIP143 was designed for (no quadratic hashing).
public struct SegwitV0Sighash: Sendable {
    public let transaction: Transaction
    /// SHA256d of every input's outpoint.
    public let hashPrevouts: [UInt8]
    /// SHA256d of every input's nSequence.
    public let hashSequence: [UInt8]
    /// SHA256d of every output (amount and scriptPubKey).
    public let hashOutputs: [UInt8]

    public init(transaction: Transaction) {
        self.transaction = transaction
        let digests = TransactionDigests(transaction)
        // BIP143 uses double SHA-256; the shared digests are single SHA-256 (BIP341), so one
        // more round gives the BIP143 values.
        hashPrevouts = SHA256.hash(digests.prevouts)
        hashSequence = SHA256.hash(digests.sequences)
        hashOutputs = SHA256.hash(digests.outputs)
    }

    /// The BIP143 preimage for one input.
    ///
    /// - Parameters:
    ///   - scriptCode: the script code without its length prefix: for P2WPKH the
    ///     `OP_DUP OP_HASH160 <hash> OP_EQUALVERIFY OP_CHECKSIG` script, for P2WSH the witness
    ///     script from after the last executed OP_CODESEPARATOR (nothing is removed here).
    ///   - amount: the value of the output this input spends, in satoshis.
    public func preimage(inputIndex: Int, scriptCode: Script, amount: Int64, hashType: SighashType) throws -> [UInt8] {
        guard transaction.inputs.indices.contains(inputIndex) else {
            throw BitcoinError.invalidSighash("input index \(inputIndex) out of range (\(transaction.inputs.count) inputs)")
        }
        let input = transaction.inputs[inputIndex]
        let zero = [UInt8](repeating: 0, count: 32)
        let commitsToOtherSequences = !hashType.isAnyoneCanPay && !hashType.legacyIsSingle && !hashType.legacyIsNone

        var writer = ByteWriter(capacity: 160 + scriptCode.count)
        writer.write(transaction.version)
        writer.write(hashType.isAnyoneCanPay ? zero : hashPrevouts)
        writer.write(commitsToOtherSequences ? hashSequence : zero)
        input.previousOutput.write(to: &writer)
        writer.writeVarBytes(scriptCode.bytes)
        writer.write(amount)
        writer.write(input.sequence)
        if !hashType.legacyIsSingle && !hashType.legacyIsNone {
            writer.write(hashOutputs)
        } else if hashType.legacyIsSingle && inputIndex < transaction.outputs.count {
            var output = ByteWriter()
            transaction.outputs[inputIndex].write(to: &output)
            writer.write(SHA256.doubleHash(output.bytes))
        } else {
            // NONE, or SINGLE without a matching output: BIP143 signs zeros here instead of
            // the legacy "1" digest.
            writer.write(zero)
        }
        writer.write(transaction.lockTime)
        writer.write(hashType.rawValue)
        return writer.bytes
    }

    /// The 32-byte digest to sign: SHA256d of the preimage.
    public func hash(inputIndex: Int, scriptCode: Script, amount: Int64, hashType: SighashType) throws -> [UInt8] {
        SHA256.doubleHash(try preimage(inputIndex: inputIndex, scriptCode: scriptCode, amount: amount, hashType: hashType))
    }
}
