/// The two pieces of the protobuf wire format a macaroon needs: base-128 varints (also
/// the V2 macaroon's field lengths) and length-delimited fields.
enum ProtoWire {
    static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            out.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        out.append(UInt8(rest))
    }

    /// nil when the bytes end inside the varint or it is longer than 10 bytes.
    static func readVarint(_ bytes: [UInt8], at offset: inout Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count, shift < 64 {
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }

    static func appendBytes(field: UInt64, _ data: [UInt8], to out: inout [UInt8]) {
        appendVarint(field << 3 | 2, to: &out)
        appendVarint(UInt64(data.count), to: &out)
        out += data
    }

    /// The fields of one message as (number, bytes) for length-delimited ones; varint and
    /// fixed fields (none in a macaroon id) are skipped, as a reader of a newer message
    /// skips what it does not know. nil when the message is cut.
    static func lengthDelimitedFields(_ bytes: [UInt8]) -> [(field: UInt64, data: [UInt8])]? {
        var fields: [(field: UInt64, data: [UInt8])] = []
        var offset = 0
        while offset < bytes.count {
            guard let key = readVarint(bytes, at: &offset) else { return nil }
            switch key & 7 {
            case 0:
                guard readVarint(bytes, at: &offset) != nil else { return nil }
            case 1:
                guard bytes.count - offset >= 8 else { return nil }
                offset += 8
            case 5:
                guard bytes.count - offset >= 4 else { return nil }
                offset += 4
            case 2:
                guard let length = readVarint(bytes, at: &offset), length <= UInt64(bytes.count - offset) else { return nil }
                fields.append((key >> 3, Array(bytes[offset..<offset + Int(length)])))
                offset += Int(length)
            default:
                return nil
            }
        }
        return fields
    }
}
