/// Text a peer sent, made safe to write into a log line: quoted, every control, quote,
/// backslash and non-ASCII character escaped as `\u{…}`-style hex, and cut at `limit`
/// characters with the original length noted. A peer can then neither forge a log line
/// (a newline in a swap id) nor fill the log with one field.
public enum UntrustedText {
    public static let defaultLimit = 64

    public static func quoted(_ text: String, limit: Int = defaultLimit) -> String {
        var out = "\""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit {
                out += "…"
                break
            }
            switch scalar.value {
            case 0x20...0x7e where scalar != "\"" && scalar != "\\":
                out.unicodeScalars.append(scalar)
            default:
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            }
            count += 1
        }
        out += "\""
        let total = text.unicodeScalars.count
        return total > limit ? out + " (\(total) characters)" : out
    }
}
