extension Opcode {
    /// The smallest push of `data`, as BIP62's minimal-push rule and Core's `CScript <<` choose:
    /// empty -> OP_0, one byte 1...16 -> OP_N, 0x81 -> OP_1NEGATE, else the shortest length prefix.
    public static func pushMinimal(_ data: [UInt8]) -> Opcode {
        if data.isEmpty { return .zero }
        if data.count == 1 {
            if (1...16).contains(data[0]) { return .number(data[0]) }
            if data[0] == 0x81 { return .oneNegate }
        }
        return pushData(data)
    }

    /// A push of `data` with the shortest length prefix, never converted to OP_N
    /// (this is what `CScript << bytes` does and what signatures and keys use).
    public static func pushData(_ data: [UInt8]) -> Opcode {
        switch data.count {
        case 0: return .zero
        case 1...75: return .push(data)
        case 76...0xff: return .pushData1(data)
        case 0x100...0xffff: return .pushData2(data)
        default: return .pushData4(data)
        }
    }

    /// A script number push as `CScript << int64` does: OP_0, OP_1NEGATE, OP_1...OP_16, or the
    /// minimal little-endian sign-magnitude encoding.
    public static func pushNumber(_ value: Int64) -> Opcode {
        if value == 0 { return .zero }
        if value == -1 { return .oneNegate }
        if (1...16).contains(value) { return .number(UInt8(value)) }
        return pushData(ScriptNumber(value).bytes)
    }

    /// The data this element pushes, or nil for operations. OP_N and OP_1NEGATE count as
    /// pushes of their number.
    public var pushedData: [UInt8]? {
        switch self {
        case .zero: return []
        case .push(let d), .pushData1(let d), .pushData2(let d), .pushData4(let d): return d
        case .number(let n): return [n]
        case .oneNegate: return [0x81]
        default: return nil
        }
    }

    func write(to writer: inout ByteWriter) {
        switch self {
        case .push(let data):
            precondition((1...75).contains(data.count), "a direct push carries 1...75 bytes; use pushData(_:)")
            writer.write(UInt8(data.count))
            writer.write(data)
        case .pushData1(let data):
            precondition(data.count <= 0xff, "OP_PUSHDATA1 carries at most 255 bytes")
            writer.write(UInt8(0x4c)); writer.write(UInt8(data.count)); writer.write(data)
        case .pushData2(let data):
            precondition(data.count <= 0xffff, "OP_PUSHDATA2 carries at most 65535 bytes")
            writer.write(UInt8(0x4d)); writer.write(UInt16(data.count)); writer.write(data)
        case .pushData4(let data):
            writer.write(UInt8(0x4e)); writer.write(UInt32(data.count)); writer.write(data)
        default:
            writer.write(byte)
        }
    }

    static func read(from reader: inout ByteReader) throws -> Opcode {
        let byte = try reader.readUInt8()
        switch byte {
        case 0x00: return .zero
        case 0x01...0x4b: return .push(try reader.read(count: Int(byte), what: "script push"))
        case 0x4c:
            let count = Int(try reader.readUInt8())
            return .pushData1(try reader.read(count: count, what: "OP_PUSHDATA1 data"))
        case 0x4d:
            let count = Int(try reader.readUInt16())
            return .pushData2(try reader.read(count: count, what: "OP_PUSHDATA2 data"))
        case 0x4e:
            let count = Int(try reader.readUInt32())
            return .pushData4(try reader.read(count: count, what: "OP_PUSHDATA4 data"))
        default:
            guard let op = Opcode.operation(byte: byte) else {
                throw BitcoinError.invalidScript("unhandled opcode byte \(byte)")
            }
            return op
        }
    }

    /// Core-style assembly of one element: pushes as hex, OP_N as its number.
    var assembly: String {
        switch self {
        case .zero: return "0"
        case .number(let n): return "\(n)"
        case .oneNegate: return "-1"
        case .push(let d), .pushData1(let d), .pushData2(let d), .pushData4(let d): return d.hex
        default: return name
        }
    }
}
