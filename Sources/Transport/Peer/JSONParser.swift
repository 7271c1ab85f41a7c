/// A strict JSON parser for messages from peers: RFC 8259 with bounds, no Foundation.
///
/// Policy, beyond the RFC's grammar:
/// - the input is at most `maxLength` bytes and nests at most `maxDepth` arrays/objects
///   (the top-level object is depth 1), so neither memory nor recursion is the peer's to
///   choose;
/// - an object with a repeated key is refused (`duplicateKey`): the RFC leaves duplicates
///   undefined, and two readers that pick different copies would disagree about what a
///   signed message says;
/// - strings must be valid UTF-8; `\u` escapes must pair surrogates; raw control
///   characters are refused; `\u0000` is allowed;
/// - exactly one value, surrounded by optional whitespace; anything after it is refused.
public struct JSONParser: Sendable {
    public struct Limits: Sendable, Equatable {
        public var maxLength: Int
        public var maxDepth: Int

        public init(maxLength: Int = ChannelLimits.wireMessageLimit, maxDepth: Int = 32) {
            self.maxLength = maxLength
            self.maxDepth = maxDepth
        }
    }

    private let bytes: [UInt8]
    private let limits: Limits
    private var offset = 0
    private var depth = 0

    private init(bytes: [UInt8], limits: Limits) {
        self.bytes = bytes
        self.limits = limits
    }

    public static func parse(_ bytes: [UInt8], limits: Limits = Limits()) throws(JSONError) -> JSONValue {
        guard bytes.count <= limits.maxLength else { throw .tooLarge(size: bytes.count, limit: limits.maxLength) }
        var parser = JSONParser(bytes: bytes, limits: limits)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.offset == bytes.count else { throw .trailingData(offset: parser.offset) }
        return value
    }

    /// libFuzzer entry: any bytes parse or fail with a typed error, never crash or recurse
    /// past the depth limit.
    public static func fuzz(_ data: [UInt8]) {
        _ = try? parse(data, limits: Limits(maxLength: 1 << 16, maxDepth: 16))
    }

    private mutating func parseValue() throws(JSONError) -> JSONValue {
        guard offset < bytes.count else { throw .unexpectedEnd }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw .unexpectedByte(offset: offset)
        }
    }

    private mutating func parseObject() throws(JSONError) -> JSONValue {
        try enterContainer()
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if try peek() == UInt8(ascii: "}") {
            offset += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            let keyOffset = offset
            guard try peek() == UInt8(ascii: "\"") else { throw .unexpectedByte(offset: offset) }
            let key = try parseString()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            let value = try parseValue()
            guard members.updateValue(value, forKey: key) == nil else { throw .duplicateKey(offset: keyOffset) }
            skipWhitespace()
            if try consumeSeparator(closing: UInt8(ascii: "}")) { break }
        }
        depth -= 1
        return .object(members)
    }

    private mutating func parseArray() throws(JSONError) -> JSONValue {
        try enterContainer()
        var elements: [JSONValue] = []
        skipWhitespace()
        if try peek() == UInt8(ascii: "]") {
            offset += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            if try consumeSeparator(closing: UInt8(ascii: "]")) { break }
        }
        depth -= 1
        return .array(elements)
    }

    private mutating func enterContainer() throws(JSONError) {
        depth += 1
        guard depth <= limits.maxDepth else { throw .tooDeep(limit: limits.maxDepth) }
        offset += 1
    }

    /// After a member or element: true at the closing bracket, false after a comma.
    private mutating func consumeSeparator(closing: UInt8) throws(JSONError) -> Bool {
        let byte = try peek()
        offset += 1
        if byte == closing { return true }
        guard byte == UInt8(ascii: ",") else { throw .unexpectedByte(offset: offset - 1) }
        return false
    }

    private mutating func parseString() throws(JSONError) -> String {
        let start = offset
        offset += 1
        // Most strings (keys, hex, txids) hold no escape: their text is the bytes between
        // the quotes, validated once where they lie, with no buffer built byte by byte.
        let plainStart = offset
        var allBits: UInt8 = 0
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                let plain = bytes[plainStart..<offset]
                offset += 1
                // ASCII is valid UTF-8 as it stands, and decoding it is a copy: the
                // stdlib's validating initializer is generic and unspecialized, and looked
                // up type metadata at every call (docs/PERFORMANCE.md). Only text with other
                // bytes goes through it.
                if allBits < 0x80 { return String(decoding: plain, as: UTF8.self) }
                guard let text = String(validating: plain, as: UTF8.self) else { throw .invalidUnicode(offset: start) }
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw .controlCharacter(offset: offset) }
            allBits |= byte
            offset += 1
        }
        // An escape: the bytes so far, then the rest unescaped into a buffer.
        var utf8 = Array(bytes[plainStart..<offset])
        while true {
            guard offset < bytes.count else { throw .unexpectedEnd }
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "\""):
                offset += 1
                guard let text = String(validating: utf8, as: UTF8.self) else { throw .invalidUnicode(offset: start) }
                return text
            case UInt8(ascii: "\\"):
                try parseEscape(into: &utf8)
            case 0..<0x20:
                throw .controlCharacter(offset: offset)
            default:
                utf8.append(byte)
                offset += 1
            }
        }
    }

    private mutating func parseEscape(into utf8: inout [UInt8]) throws(JSONError) {
        let escapeOffset = offset
        offset += 1
        guard offset < bytes.count else { throw .unexpectedEnd }
        let byte = bytes[offset]
        offset += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(byte)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4(escapeOffset: escapeOffset)
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed at once by an escaped low surrogate.
                guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"),
                      bytes[offset + 1] == UInt8(ascii: "u") else { throw .invalidUnicode(offset: escapeOffset) }
                offset += 2
                let low = try parseHex4(escapeOffset: escapeOffset)
                guard (0xDC00...0xDFFF).contains(low) else { throw .invalidUnicode(offset: escapeOffset) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw .invalidUnicode(offset: escapeOffset)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw .invalidUnicode(offset: escapeOffset) }
            utf8 += Array(String(Character(unicode)).utf8)
        default:
            throw .invalidEscape(offset: escapeOffset)
        }
    }

    private mutating func parseHex4(escapeOffset: Int) throws(JSONError) -> UInt32 {
        guard offset + 4 <= bytes.count else { throw .unexpectedEnd }
        var value: UInt32 = 0
        for byte in bytes[offset..<offset + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw .invalidEscape(offset: escapeOffset)
            }
            value = value << 4 | UInt32(digit)
        }
        offset += 4
        return value
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func parseNumber() throws(JSONError) -> String {
        let start = offset
        if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        guard offset < bytes.count, isDigit(bytes[offset]) else { throw .invalidNumber(offset: start) }
        if bytes[offset] == UInt8(ascii: "0") {
            offset += 1
            if offset < bytes.count, isDigit(bytes[offset]) { throw .invalidNumber(offset: start) }
        } else {
            skipDigits()
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            guard offset < bytes.count, isDigit(bytes[offset]) else { throw .invalidNumber(offset: start) }
            skipDigits()
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            guard offset < bytes.count, isDigit(bytes[offset]) else { throw .invalidNumber(offset: start) }
            skipDigits()
        }
        // The grammar above admits only ASCII, so the text is always valid UTF-8.
        return String(decoding: bytes[start..<offset], as: UTF8.self)
    }

    private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private mutating func skipDigits() {
        while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let start = offset
        for expected in UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount) {
            guard offset < bytes.count else { throw .unexpectedEnd }
            guard bytes[offset] == expected else { throw .unexpectedByte(offset: start) }
            offset += 1
        }
    }

    private mutating func expect(_ byte: UInt8) throws(JSONError) {
        guard try peek() == byte else { throw .unexpectedByte(offset: offset) }
        offset += 1
    }

    private func peek() throws(JSONError) -> UInt8 {
        guard offset < bytes.count else { throw .unexpectedEnd }
        return bytes[offset]
    }

    private mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): offset += 1
            default: return
            }
        }
    }
}
