/// A Bitcoin transaction as an immutable-by-convention value: its parts, wire encoding
/// (BIP144 when any input has a witness), ids, weight and virtual size.
public struct Transaction: Hashable, Sendable {
    public var version: Int32
    public var inputs: [TransactionInput]
    public var outputs: [TransactionOutput]
    public var lockTime: UInt32

    public init(version: Int32 = 2, inputs: [TransactionInput], outputs: [TransactionOutput], lockTime: UInt32 = 0) {
        self.version = version
        self.inputs = inputs
        self.outputs = outputs
        self.lockTime = lockTime
    }

    public var hasWitness: Bool { inputs.contains { !$0.witness.isEmpty } }

    /// Serialization with witnesses when present (what is relayed and mined).
    public var serialized: [UInt8] { serialized(includingWitness: true) }

    public func serialized(includingWitness: Bool) -> [UInt8] {
        var writer = ByteWriter()
        let segwit = includingWitness && hasWitness
        writer.write(version)
        if segwit {
            writer.write(UInt8(0x00)) // marker
            writer.write(UInt8(0x01)) // flag
        }
        writer.writeCompactSize(inputs.count)
        for input in inputs {
            input.previousOutput.write(to: &writer)
            writer.writeVarBytes(input.scriptSig.bytes)
            writer.write(input.sequence)
        }
        writer.writeCompactSize(outputs.count)
        for output in outputs { output.write(to: &writer) }
        if segwit {
            for input in inputs { input.witness.write(to: &writer) }
        }
        writer.write(lockTime)
        return writer.bytes
    }

    public var txid: TransactionID {
        try! TransactionID(bytes: SHA256.doubleHash(serialized(includingWitness: false)))
    }

    public var wtxid: TransactionID {
        try! TransactionID(bytes: SHA256.doubleHash(serialized(includingWitness: true)))
    }

    /// BIP141 weight: base size × 3 + total size.
    public var weight: Int {
        serialized(includingWitness: false).count * 3 + serialized(includingWitness: true).count
    }

    /// Virtual size in vbytes: weight / 4, rounded up.
    public var virtualSize: Int { (weight + 3) / 4 }

    public var isCoinbase: Bool { inputs.count == 1 && inputs[0].previousOutput.isNull }
}

extension Transaction {
    /// Decodes a serialized transaction the way Core's deserializer does, including the
    /// BIP144 marker and flag, and rejects trailing bytes.
    public init(bytes: [UInt8]) throws {
        var reader = ByteReader(bytes)
        self = try Transaction.read(from: &reader)
        guard reader.isAtEnd else { throw BitcoinError.trailingBytes(what: "transaction", count: reader.remaining) }
    }

    public init(hex: String) throws {
        guard let raw = [UInt8](hex: hex) else { throw BitcoinError.invalidHex }
        try self.init(bytes: raw)
    }

    static func read(from reader: inout ByteReader) throws -> Transaction {
        let version = try reader.readInt32()
        var inputs = try readInputs(from: &reader)
        var outputs: [TransactionOutput] = []
        var flags: UInt8 = 0
        if inputs.isEmpty {
            // An empty input list is the BIP144 marker; the next byte is the flag.
            flags = try reader.readUInt8()
            if flags != 0 {
                inputs = try readInputs(from: &reader)
                outputs = try readOutputs(from: &reader)
            }
        } else {
            outputs = try readOutputs(from: &reader)
        }
        if flags & 1 != 0 {
            flags ^= 1
            for i in inputs.indices { inputs[i].witness = try Witness.read(from: &reader) }
            if inputs.allSatisfy({ $0.witness.isEmpty }) {
                throw BitcoinError.invalidTransaction("superfluous witness record")
            }
        }
        if flags != 0 { throw BitcoinError.invalidTransaction("unknown transaction optional data") }
        let lockTime = try reader.readUInt32()
        return Transaction(version: version, inputs: inputs, outputs: outputs, lockTime: lockTime)
    }

    private static func readInputs(from reader: inout ByteReader) throws -> [TransactionInput] {
        let count = try reader.readCompactSize()
        var inputs: [TransactionInput] = []
        for _ in 0..<count {
            let outpoint = try OutPoint.read(from: &reader)
            let scriptSig = Script(bytes: try reader.readVarBytes(what: "scriptSig"))
            inputs.append(TransactionInput(previousOutput: outpoint, scriptSig: scriptSig, sequence: try reader.readUInt32()))
        }
        return inputs
    }

    private static func readOutputs(from reader: inout ByteReader) throws -> [TransactionOutput] {
        let count = try reader.readCompactSize()
        var outputs: [TransactionOutput] = []
        for _ in 0..<count { outputs.append(try TransactionOutput.read(from: &reader)) }
        return outputs
    }
}
