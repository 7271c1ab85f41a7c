/// One resource record: owner name, class (IN for everything pkarr carries), TTL and data.
public struct DNSRecord: Sendable, Hashable {
    public static let classIN: UInt16 = 1

    public let name: DNSName
    public let recordClass: UInt16
    public let ttl: UInt32
    public let data: DNSRecordData

    public init(name: DNSName, ttl: UInt32, data: DNSRecordData, recordClass: UInt16 = DNSRecord.classIN) {
        self.name = name
        self.recordClass = recordClass
        self.ttl = ttl
        self.data = data
    }

    func encode(into writer: inout DNSWriter) throws(PkarrError) {
        writer.name(name)
        writer.u16(data.type)
        writer.u16(recordClass)
        writer.u32(ttl)
        let lengthOffset = writer.bytes.count
        writer.u16(0)
        try data.encode(into: &writer)
        let length = writer.bytes.count - lengthOffset - 2
        guard length <= Int(UInt16.max) else { throw .invalidRecord("the record's data is longer than 65,535 bytes") }
        writer.patch(UInt16(length), at: lengthOffset)
    }

    static func decode(from reader: inout DNSReader) throws(PkarrError) -> DNSRecord {
        let name = try reader.name("a record's name")
        let type = try reader.u16("a record's type")
        let recordClass = try reader.u16("a record's class")
        let ttl = try reader.u32("a record's TTL")
        let length = try reader.u16("a record's data length")
        let data = try DNSRecordData.decode(type: type, length: Int(length), from: &reader)
        return DNSRecord(name: name, ttl: ttl, data: data, recordClass: recordClass)
    }

    /// The zone-file line (`_peernode 300 SVCB 1 . port=9737`), names relative to `zone`.
    public func zoneLine(in zone: DNSName) -> String {
        "\(name.relative(to: zone)) \(ttl) \(DNSRecordData.mnemonic(data.type)) \(dataText(in: zone))"
    }

    private func dataText(in zone: DNSName) -> String {
        switch data {
        case .a, .aaaa: return data.addressText ?? "?"
        case .txt(let strings): return strings.map(Self.quoted).joined(separator: " ")
        case .svcb(let record), .https(let record):
            let target = record.target.labels.isEmpty ? "." : record.target.description + "."
            let parameters = record.parameters.map { parameter in
                parameter.key == SVCBRecord.portKey ? "port=\(record.port ?? 0)" : "key\(parameter.key)=\(parameter.value.hex)"
            }
            return ([String(record.priority), target] + parameters).joined(separator: " ")
        case .cname(let name), .ns(let name), .ptr(let name): return name.description + "."
        case .mx(let preference, let exchange): return "\(preference) \(exchange)."
        case .other(_, let bytes): return "\\# \(bytes.count) \(bytes.hex)"
        }
    }

    /// A character-string in zone-file quotes: `"` and `\` escaped, bytes outside printable
    /// ASCII as `\DDD`.
    private static func quoted(_ bytes: [UInt8]) -> String {
        var text = "\""
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): text += "\\" + String(UnicodeScalar(byte))
            case 0x20...0x7e: text += String(UnicodeScalar(byte))
            default: text += "\\" + String(byte).leftPadded(to: 3)
            }
        }
        return text + "\""
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
