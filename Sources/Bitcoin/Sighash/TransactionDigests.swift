/// Single SHA-256 digests over a transaction's inputs and outputs, shared by BIP143 (which
/// hashes them once more) and BIP341 (which uses them as they are), so neither recomputes
/// them per input.
struct TransactionDigests: Sendable {
    /// SHA256 of every input's outpoint, in order.
    let prevouts: [UInt8]
    /// SHA256 of every input's nSequence.
    let sequences: [UInt8]
    /// SHA256 of every output in wire form.
    let outputs: [UInt8]

    init(_ transaction: Transaction) {
        var prevouts = ByteWriter(capacity: 36 * transaction.inputs.count)
        var sequences = ByteWriter(capacity: 4 * transaction.inputs.count)
        for input in transaction.inputs {
            input.previousOutput.write(to: &prevouts)
            sequences.write(input.sequence)
        }
        var outputs = ByteWriter()
        for output in transaction.outputs { output.write(to: &outputs) }
        self.prevouts = SHA256.hash(prevouts.bytes)
        self.sequences = SHA256.hash(sequences.bytes)
        self.outputs = SHA256.hash(outputs.bytes)
    }
}
