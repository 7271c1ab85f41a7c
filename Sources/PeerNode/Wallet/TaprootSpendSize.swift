import Bitcoin

/// Sizes of transactions that spend only the wallet's BIP86 outputs by key path.
///
/// A key-path witness with SIGHASH_DEFAULT is one 64-byte Schnorr signature, always, so
/// the size of the unsigned transaction with a 64-byte placeholder in each witness is the
/// signed size exactly: the fee is computed from the real size, never an estimate.
enum TaprootSpendSize {
    static let placeholderWitness = Witness([[UInt8](repeating: 0, count: SchnorrSignature.byteCount)])

    /// The vsize of a transaction with `inputCount` key-path inputs and `outputs`.
    static func virtualSize(inputCount: Int, outputs: [TransactionOutput], lockTime: UInt32 = 0) -> Int {
        let inputs = (0..<inputCount).map { _ in
            TransactionInput(previousOutput: OutPoint(txid: .zero, index: 0), sequence: TransactionInput.replaceableSequence,
                             witness: placeholderWitness)
        }
        return Transaction(version: 2, inputs: inputs, outputs: outputs, lockTime: lockTime).virtualSize
    }

    /// Weight of one key-path input: 41 bytes outside the witness (outpoint 36, empty
    /// scriptSig 1, sequence 4) count four times, the witness (item count, length, 64-byte
    /// signature) once: 230, i.e. 57.5 vbytes.
    static let inputWeight = 41 * 4 + 1 + 1 + SchnorrSignature.byteCount

    /// vbytes of a P2TR output: value 8, script length 1, script 34.
    static let p2trOutputSize = 8 + 1 + 34
}
