/// Appends Bitcoin's wire encodings (little-endian integers, CompactSize lengths) to a buffer.
public struct ByteWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func write(_ data: some Sequence<UInt8>) { bytes.append(contentsOf: data) }
    public mutating func write(_ byte: UInt8) { bytes.append(byte) }
    public mutating func write(_ value: UInt16) { writeLittleEndian(value) }
    public mutating func write(_ value: UInt32) { writeLittleEndian(value) }
    public mutating func write(_ value: UInt64) { writeLittleEndian(value) }
    public mutating func write(_ value: Int32) { writeLittleEndian(UInt32(bitPattern: value)) }
    public mutating func write(_ value: Int64) { writeLittleEndian(UInt64(bitPattern: value)) }

    /// Bitcoin's variable-length integer ("CompactSize").
    public mutating func writeCompactSize(_ value: Int) {
        precondition(value >= 0, "CompactSize cannot encode a negative length")
        let v = UInt64(value)
        switch v {
        case ..<0xfd: write(UInt8(v))
        case ...0xffff: write(UInt8(0xfd)); write(UInt16(v))
        case ...0xffff_ffff: write(UInt8(0xfe)); write(UInt32(v))
        default: write(UInt8(0xff)); write(v)
        }
    }

    /// A CompactSize length followed by the bytes.
    public mutating func writeVarBytes(_ data: [UInt8]) {
        writeCompactSize(data.count)
        write(data)
    }

    private mutating func writeLittleEndian<T: FixedWidthInteger>(_ value: T) {
        var v = value.littleEndian
        withUnsafeBytes(of: &v) { bytes.append(contentsOf: $0) }
    }
}
