/// Reads Bitcoin's wire encodings from a buffer, failing with `BitcoinError.truncated`
/// rather than trapping when the input is short.
public struct ByteReader: Sendable {
    public let bytes: [UInt8]
    public private(set) var offset: Int = 0

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var remaining: Int { bytes.count - offset }
    public var isAtEnd: Bool { offset == bytes.count }

    public func peek() throws -> UInt8 {
        guard offset < bytes.count else { throw BitcoinError.truncated(what: "byte") }
        return bytes[offset]
    }

    public mutating func read(count: Int, what: String = "bytes") throws -> [UInt8] {
        guard count >= 0, remaining >= count else { throw BitcoinError.truncated(what: what) }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    public mutating func readUInt8() throws -> UInt8 { try readLittleEndian() }
    public mutating func readUInt16() throws -> UInt16 { try readLittleEndian() }
    public mutating func readUInt32() throws -> UInt32 { try readLittleEndian() }
    public mutating func readUInt64() throws -> UInt64 { try readLittleEndian() }
    public mutating func readInt32() throws -> Int32 { Int32(bitPattern: try readLittleEndian()) }
    public mutating func readInt64() throws -> Int64 { Int64(bitPattern: try readLittleEndian()) }

    /// Bitcoin's CompactSize, rejecting non-canonical encodings and values above `limit`
    /// (Core's MAX_SIZE, 0x02000000, by default) as Core does.
    public mutating func readCompactSize(limit: UInt64 = 0x0200_0000) throws -> Int {
        let first = try readUInt8()
        let value: UInt64
        switch first {
        case 0xfd:
            value = UInt64(try readUInt16())
            guard value >= 0xfd else { throw BitcoinError.invalidTransaction("non-canonical CompactSize") }
        case 0xfe:
            value = UInt64(try readUInt32())
            guard value > 0xffff else { throw BitcoinError.invalidTransaction("non-canonical CompactSize") }
        case 0xff:
            value = try readUInt64()
            guard value > 0xffff_ffff else { throw BitcoinError.invalidTransaction("non-canonical CompactSize") }
        default:
            value = UInt64(first)
        }
        guard value <= limit else { throw BitcoinError.invalidTransaction("CompactSize \(value) above limit \(limit)") }
        return Int(value)
    }

    public mutating func readVarBytes(what: String = "bytes") throws -> [UInt8] {
        let count = try readCompactSize()
        return try read(count: count, what: what)
    }

    private mutating func readLittleEndian<T: FixedWidthInteger>() throws -> T {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { throw BitcoinError.truncated(what: "\(size)-byte integer") }
        var value: T = 0
        for i in 0..<size { value |= T(bytes[offset + i]) << (8 * i) }
        offset += size
        return value
    }
}
