/// A bounds-checked cursor over a DNS packet. Every read says what it was reading, so a
/// short packet is refused with the part it ended in.
struct DNSReader {
    let bytes: [UInt8]
    private(set) var position: Int

    init(_ bytes: [UInt8], position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    var remaining: Int { bytes.count - position }

    mutating func u8(_ part: String) throws(PkarrError) -> UInt8 {
        guard remaining >= 1 else { throw .truncated(part) }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func u16(_ part: String) throws(PkarrError) -> UInt16 {
        guard remaining >= 2 else { throw .truncated(part) }
        defer { position += 2 }
        return UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1])
    }

    mutating func u32(_ part: String) throws(PkarrError) -> UInt32 {
        guard remaining >= 4 else { throw .truncated(part) }
        defer { position += 4 }
        return bytes[position..<(position + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func take(_ count: Int, _ part: String) throws(PkarrError) -> [UInt8] {
        guard count >= 0, remaining >= count else { throw .truncated(part) }
        defer { position += count }
        return Array(bytes[position..<(position + count)])
    }

    /// A name at the cursor. With `compressed`, a pointer may replace the rest of the name
    /// (RFC 1035 4.1.4); each pointer must point strictly before the last place read from and
    /// past the header, so every name ends, however the pointers are laid.
    mutating func name(_ part: String, compressed: Bool = true) throws(PkarrError) -> DNSName {
        var labels: [String] = []
        var wireLength = 1
        var cursor = position
        var resume: Int?
        var floor = position
        while true {
            guard cursor < bytes.count else { throw .truncated(part) }
            let length = bytes[cursor]
            switch length & 0xc0 {
            case 0x00:
                if length == 0 {
                    position = resume ?? cursor + 1
                    return DNSName(checkedLabels: labels)
                }
                let end = cursor + 1 + Int(length)
                guard end <= bytes.count else { throw .truncated(part) }
                wireLength += 1 + Int(length)
                guard wireLength <= DNSName.maxWireLength else { throw .nameTooLong }
                labels.append(try DNSName.checkedLabel(bytes[(cursor + 1)..<end]))
                cursor = end
            case 0xc0:
                guard compressed else { throw .badPointer }
                guard cursor + 1 < bytes.count else { throw .truncated(part) }
                let target = Int(length & 0x3f) << 8 | Int(bytes[cursor + 1])
                guard target >= DNSPacket.headerLength, target < floor else { throw .badPointer }
                if resume == nil { resume = cursor + 2 }
                floor = target
                cursor = target
            default:
                throw .badLabelType
            }
        }
    }
}
