/// One output: an amount in satoshis locked by a scriptPubKey.
public struct TransactionOutput: Hashable, Sendable {
    /// Satoshis. Signed because the wire format is, and Core's checks reject negatives.
    public var value: Int64
    public var scriptPubKey: Script

    public init(value: Int64, scriptPubKey: Script) {
        self.value = value
        self.scriptPubKey = scriptPubKey
    }

    /// Serialized size: 8-byte amount plus the length-prefixed script.
    var serializedSize: Int {
        var writer = ByteWriter()
        write(to: &writer)
        return writer.bytes.count
    }

    func write(to writer: inout ByteWriter) {
        writer.write(value)
        writer.writeVarBytes(scriptPubKey.bytes)
    }

    static func read(from reader: inout ByteReader) throws -> TransactionOutput {
        let value = try reader.readInt64()
        return TransactionOutput(value: value, scriptPubKey: Script(bytes: try reader.readVarBytes(what: "scriptPubKey")))
    }
}
