extension OrderedJSON {
    /// The compact text Core's UniValue `write()` produces: no spaces, members in order,
    /// strings escaped as UniValue escapes them.
    public var compact: String {
        var out = ""
        write(to: &out, indent: 0, level: 0)
        return out
    }

    /// UniValue's `write(indent)`: one member or element per line, `indent` spaces per
    /// level, `": "` after keys. Core uses it inside some error messages (`Wrong type passed`).
    public func pretty(indent: Int) -> String {
        var out = ""
        write(to: &out, indent: indent, level: 0)
        return out
    }

    private func write(to out: inout String, indent: Int, level: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let text): out += text
        case .string(let text): OrderedJSON.writeString(text, to: &out)
        case .array(let elements):
            out += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { out += "," }
                OrderedJSON.newline(&out, indent: indent, level: level + 1)
                element.write(to: &out, indent: indent, level: level + 1)
            }
            if !elements.isEmpty { OrderedJSON.newline(&out, indent: indent, level: level) }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { out += "," }
                OrderedJSON.newline(&out, indent: indent, level: level + 1)
                OrderedJSON.writeString(member.key, to: &out)
                out += indent > 0 ? ": " : ":"
                member.value.write(to: &out, indent: indent, level: level + 1)
            }
            if !members.isEmpty { OrderedJSON.newline(&out, indent: indent, level: level) }
            out += "}"
        }
    }

    private static func newline(_ out: inout String, indent: Int, level: Int) {
        guard indent > 0 else { return }
        out += "\n" + String(repeating: " ", count: indent * level)
    }

    /// UniValue's escaping: `"` and `\`, the named control escapes, `\u00XX` for the
    /// other control characters and DEL; everything else (including non-ASCII) as is.
    static func writeString(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7f {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
