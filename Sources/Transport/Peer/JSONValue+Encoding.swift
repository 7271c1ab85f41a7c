/// The canonical JSON form of a value: the bytes signatures are made over, so two nodes
/// that hold the same value always sign and verify the same bytes.
///
/// - objects: members sorted by the UTF-8 bytes of their keys (byte-wise, shorter first on
///   a common prefix), `{"a":1,"b":2}`, no whitespace anywhere;
/// - arrays: elements in order, `[1,2]`;
/// - strings: UTF-8 as is, except `"` -> `\"`, `\` -> `\\`, and bytes below 0x20, written
///   `\b` `\f` `\n` `\r` `\t` for those five and `\u00xx` (lowercase hex) for the rest;
///   nothing else is escaped (not `/`, not DEL, not non-ASCII);
/// - numbers: their literal text (`JSONValue` keeps it); integers the swap layer writes
///   are plain decimal, so they round-trip byte for byte;
/// - `true`, `false`, `null`.
///
/// Parsing canonical bytes with `JSONParser` and encoding again gives the same bytes.
extension JSONValue {
    public var canonicalBytes: [UInt8] {
        var out: [UInt8] = []
        appendCanonical(to: &out)
        return out
    }

    public var canonicalString: String { String(decoding: canonicalBytes, as: UTF8.self) }

    public func appendCanonical(to out: inout [UInt8]) {
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let flag): out += Array((flag ? "true" : "false").utf8)
        case .number(let text): out += Array(text.utf8)
        case .string(let text): Self.appendCanonical(string: text, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                element.appendCanonical(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            // Byte order, not String's `<` (which compares Unicode-normalised text): any
            // implementation in any language can reproduce a byte sort.
            let keys = members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (index, key) in keys.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.appendCanonical(string: key, to: &out)
                out.append(UInt8(ascii: ":"))
                members[key]!.appendCanonical(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func appendCanonical(string: String, to out: inout [UInt8]) {
        let hexDigits = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x08: out += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0C: out += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20:
                out += Array("\\u00".utf8)
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
