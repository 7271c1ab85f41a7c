import Regtest

/// Parses JSON keeping object member order and number text, so a fixture's Core reply can
/// be compared member by member with the hub's. Test-only: fixtures are trusted input.
struct OrderedJSONParser {
    struct Failure: Error, CustomStringConvertible {
        let offset: Int
        var description: String { "malformed JSON at byte \(offset)" }
    }

    private let bytes: [UInt8]
    private var offset = 0

    static func parse(_ text: String) throws -> OrderedJSON {
        var parser = OrderedJSONParser(bytes: Array(text.utf8))
        let value = try parser.value()
        parser.skipSpace()
        guard parser.offset == parser.bytes.count else { throw Failure(offset: parser.offset) }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private mutating func skipSpace() {
        while offset < bytes.count, [0x20, 0x0a, 0x0d, 0x09].contains(bytes[offset]) { offset += 1 }
    }

    private mutating func value() throws -> OrderedJSON {
        skipSpace()
        guard offset < bytes.count else { throw Failure(offset: offset) }
        switch bytes[offset] {
        case UInt8(ascii: "{"):
            offset += 1
            var members: [OrderedJSON.Member] = []
            skipSpace()
            if bytes[offset] == UInt8(ascii: "}") { offset += 1; return .object(members) }
            while true {
                skipSpace()
                let key = try string()
                skipSpace()
                guard bytes[offset] == UInt8(ascii: ":") else { throw Failure(offset: offset) }
                offset += 1
                members.append(OrderedJSON.Member(key, try value()))
                skipSpace()
                let separator = bytes[offset]
                offset += 1
                if separator == UInt8(ascii: "}") { return .object(members) }
                guard separator == UInt8(ascii: ",") else { throw Failure(offset: offset - 1) }
            }
        case UInt8(ascii: "["):
            offset += 1
            var elements: [OrderedJSON] = []
            skipSpace()
            if bytes[offset] == UInt8(ascii: "]") { offset += 1; return .array(elements) }
            while true {
                elements.append(try value())
                skipSpace()
                let separator = bytes[offset]
                offset += 1
                if separator == UInt8(ascii: "]") { return .array(elements) }
                guard separator == UInt8(ascii: ",") else { throw Failure(offset: offset - 1) }
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"): offset += 4; return .bool(true)
        case UInt8(ascii: "f"): offset += 5; return .bool(false)
        case UInt8(ascii: "n"): offset += 4; return .null
        default:
            let start = offset
            while offset < bytes.count, "-+.eE0123456789".utf8.contains(bytes[offset]) { offset += 1 }
            guard offset > start else { throw Failure(offset: offset) }
            return .number(String(decoding: bytes[start..<offset], as: UTF8.self))
        }
    }

    private mutating func string() throws -> String {
        guard bytes[offset] == UInt8(ascii: "\"") else { throw Failure(offset: offset) }
        offset += 1
        var out: [UInt8] = []
        while offset < bytes.count {
            let byte = bytes[offset]
            offset += 1
            switch byte {
            case UInt8(ascii: "\""): return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                let escaped = bytes[offset]
                offset += 1
                switch escaped {
                case UInt8(ascii: "n"): out.append(0x0a)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0d)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0c)
                case UInt8(ascii: "u"):
                    let hex = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
                    offset += 4
                    out += Array(String(Character(Unicode.Scalar(UInt32(hex, radix: 16)!)!)).utf8)
                default: out.append(escaped)
                }
            default: out.append(byte)
            }
        }
        throw Failure(offset: offset)
    }
}

/// Compares two replies by shape: the same JSON types, objects with the same keys in the
/// same order (objects keyed by txid compare their values only), arrays empty together
/// and every element shaped like one of the other side's. Nil when they agree.
func shapeMismatch(expected: OrderedJSON, actual: OrderedJSON, path: String = "$") -> String? {
    switch (expected, actual) {
    case (.null, .null), (.bool, .bool), (.number, .number), (.string, .string):
        return nil
    case (.array(let want), .array(let got)):
        if want.isEmpty != got.isEmpty { return "\(path): \(want.count) elements expected, \(got.count) found" }
        for (index, element) in got.enumerated()
        where want.allSatisfy({ shapeMismatch(expected: $0, actual: element) != nil }) {
            return shapeMismatch(expected: want[0], actual: element, path: "\(path)[\(index)]")
        }
        return nil
    case (.object(let want), .object(let got)):
        let isTxidMap = !want.isEmpty && want.allSatisfy { $0.key.utf8.count == 64 }
        if isTxidMap {
            for member in got {
                guard member.key.utf8.count == 64 else { return "\(path): key \(member.key) is not a txid" }
                if want.allSatisfy({ shapeMismatch(expected: $0.value, actual: member.value) != nil }) {
                    return shapeMismatch(expected: want[0].value, actual: member.value, path: "\(path).<txid>")
                }
            }
            return want.isEmpty == got.isEmpty ? nil : "\(path): empty map"
        }
        let wantKeys = want.map(\.key), gotKeys = got.map(\.key)
        guard wantKeys == gotKeys else { return "\(path): keys \(gotKeys), Core has \(wantKeys)" }
        for (w, g) in zip(want, got) {
            if let mismatch = shapeMismatch(expected: w.value, actual: g.value, path: "\(path).\(w.key)") { return mismatch }
        }
        return nil
    default:
        return "\(path): \(actual.compact.prefix(60)) where Core has \(expected.compact.prefix(60))"
    }
}
