#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The data of one resource record. The types pkarr endpoints use are decoded; any other is
/// kept as its raw bytes, so a packet read from a relay can be written back unchanged
/// (names inside such data are never compressed, RFC 3597 4, except the RFC 1035 types
/// decoded here).
public enum DNSRecordData: Sendable, Hashable {
    case a([UInt8])
    case aaaa([UInt8])
    /// One or more character-strings of at most 255 bytes each.
    case txt([[UInt8]])
    case svcb(SVCBRecord)
    case https(SVCBRecord)
    case cname(DNSName)
    case ns(DNSName)
    case ptr(DNSName)
    case mx(preference: UInt16, exchange: DNSName)
    case other(type: UInt16, data: [UInt8])

    public static let typeA: UInt16 = 1
    public static let typeNS: UInt16 = 2
    public static let typeCNAME: UInt16 = 5
    public static let typePTR: UInt16 = 12
    public static let typeMX: UInt16 = 15
    public static let typeTXT: UInt16 = 16
    public static let typeAAAA: UInt16 = 28
    public static let typeSVCB: UInt16 = 64
    public static let typeHTTPS: UInt16 = 65

    /// An A or AAAA record for an IP literal (`127.0.0.1`, `::1`), or nil for anything else.
    public static func address(_ text: String) -> DNSRecordData? {
        var v4 = [UInt8](repeating: 0, count: 4)
        if inet_pton(AF_INET, text, &v4) == 1 { return .a(v4) }
        var v6 = [UInt8](repeating: 0, count: 16)
        if inet_pton(AF_INET6, text, &v6) == 1 { return .aaaa(v6) }
        return nil
    }

    /// One TXT record of `text`, split into character-strings of 255 bytes.
    public static func text(_ text: String) -> DNSRecordData {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return .txt([[]]) }
        return .txt(stride(from: 0, to: bytes.count, by: 255).map { Array(bytes[$0..<min($0 + 255, bytes.count)]) })
    }

    public var type: UInt16 {
        switch self {
        case .a: return Self.typeA
        case .aaaa: return Self.typeAAAA
        case .txt: return Self.typeTXT
        case .svcb: return Self.typeSVCB
        case .https: return Self.typeHTTPS
        case .cname: return Self.typeCNAME
        case .ns: return Self.typeNS
        case .ptr: return Self.typePTR
        case .mx: return Self.typeMX
        case .other(let type, _): return type
        }
    }

    /// The IP literal of an A or AAAA record.
    public var addressText: String? {
        switch self {
        case .a(let bytes): return Self.presentation(AF_INET, bytes)
        case .aaaa(let bytes): return Self.presentation(AF_INET6, bytes)
        default: return nil
        }
    }

    /// The character-strings of a TXT record joined (RFC 7208 3.3 style), as UTF-8 text.
    public var joinedText: String? {
        guard case .txt(let strings) = self else { return nil }
        return String(decoding: strings.joined(), as: UTF8.self)
    }

    func encode(into writer: inout DNSWriter) throws(PkarrError) {
        switch self {
        case .a(let bytes):
            guard bytes.count == 4 else { throw .invalidRecord("an A record holds 4 bytes, not \(bytes.count)") }
            writer.append(bytes)
        case .aaaa(let bytes):
            guard bytes.count == 16 else { throw .invalidRecord("an AAAA record holds 16 bytes, not \(bytes.count)") }
            writer.append(bytes)
        case .txt(let strings):
            guard !strings.isEmpty else { throw .invalidRecord("a TXT record holds at least one string") }
            for string in strings {
                guard string.count <= 255 else { throw .invalidRecord("a TXT string is longer than 255 bytes") }
                writer.u8(UInt8(string.count))
                writer.append(string)
            }
        case .svcb(let record), .https(let record):
            record.encode(into: &writer)
        case .cname(let name), .ns(let name), .ptr(let name):
            writer.name(name)
        case .mx(let preference, let exchange):
            writer.u16(preference)
            writer.name(exchange)
        case .other(_, let data):
            writer.append(data)
        }
    }

    /// Reads `length` bytes of RDATA of `type` at the reader's position; every byte must
    /// belong to the data.
    static func decode(type: UInt16, length: Int, from reader: inout DNSReader) throws(PkarrError) -> DNSRecordData {
        let end = reader.position + length
        guard end <= reader.bytes.count else { throw .truncated("a record's data") }
        let data: DNSRecordData
        switch type {
        case typeA:
            guard length == 4 else { throw .badRecordData("A", "\(length) bytes, not 4") }
            data = .a(try reader.take(4, "an A record"))
        case typeAAAA:
            guard length == 16 else { throw .badRecordData("AAAA", "\(length) bytes, not 16") }
            data = .aaaa(try reader.take(16, "an AAAA record"))
        case typeTXT:
            guard length > 0 else { throw .badRecordData("TXT", "no string") }
            var strings: [[UInt8]] = []
            while reader.position < end {
                let count = Int(try reader.u8("a TXT string"))
                guard reader.position + count <= end else { throw .badRecordData("TXT", "a string runs past the record") }
                strings.append(try reader.take(count, "a TXT string"))
            }
            data = .txt(strings)
        case typeSVCB:
            data = .svcb(try SVCBRecord.decode(&reader, end: end, type: "SVCB"))
        case typeHTTPS:
            data = .https(try SVCBRecord.decode(&reader, end: end, type: "HTTPS"))
        case typeCNAME:
            data = .cname(try reader.name("a CNAME target"))
        case typeNS:
            data = .ns(try reader.name("an NS target"))
        case typePTR:
            data = .ptr(try reader.name("a PTR target"))
        case typeMX:
            let preference = try reader.u16("an MX preference")
            data = .mx(preference: preference, exchange: try reader.name("an MX exchange"))
        default:
            data = .other(type: type, data: try reader.take(length, "a record's data"))
        }
        guard reader.position == end else {
            throw .badRecordData(Self.mnemonic(type), "its data is \(length) bytes but the fields take \(reader.position - end + length)")
        }
        return data
    }

    static func mnemonic(_ type: UInt16) -> String {
        switch type {
        case typeA: return "A"
        case typeAAAA: return "AAAA"
        case typeTXT: return "TXT"
        case typeSVCB: return "SVCB"
        case typeHTTPS: return "HTTPS"
        case typeCNAME: return "CNAME"
        case typeNS: return "NS"
        case typePTR: return "PTR"
        case typeMX: return "MX"
        default: return "TYPE\(type)"
        }
    }

    private static func presentation(_ family: Int32, _ bytes: [UInt8]) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(family, bytes, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        let text = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: text, as: UTF8.self)
    }
}
