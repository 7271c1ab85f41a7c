/// A reference to one output of an earlier transaction.
public struct OutPoint: Hashable, Sendable, CustomStringConvertible {
    public var txid: TransactionID
    public var index: UInt32

    public init(txid: TransactionID, index: UInt32) {
        self.txid = txid
        self.index = index
    }

    /// The null outpoint a coinbase input spends.
    public static let null = OutPoint(txid: .zero, index: .max)
    public var isNull: Bool { self == .null }

    public var description: String { "\(txid.hex):\(index)" }

    func write(to writer: inout ByteWriter) {
        writer.write(txid.bytes)
        writer.write(index)
    }

    static func read(from reader: inout ByteReader) throws -> OutPoint {
        let txid = try TransactionID(bytes: try reader.read(count: 32, what: "outpoint txid"))
        return OutPoint(txid: txid, index: try reader.readUInt32())
    }
}
