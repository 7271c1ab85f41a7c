/// One entry of the daemon's log as written: `2026-12-01T00:01:02.345Z INFO  <text>`, the
/// time in UTC with milliseconds (ISO 8601), the level padded to one width, and the text
/// with line breaks escaped so that an entry is always one line.
public enum LogLine {
    public static func format(_ text: String, unixMillis: Int64) -> String {
        let level = LogLevel.of(text)
        // An ALARM line names its level in its text already; it is written once.
        let body = level == .alarm ? String(text.dropFirst("ALARM".count).drop { $0 == " " || $0 == ":" }) : text
        return timestamp(unixMillis: unixMillis) + " " + level.rawValue
            + String(repeating: " ", count: 5 - level.rawValue.count) + " " + escaped(body) + "\n"
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC).
    public static func timestamp(unixMillis: Int64) -> String {
        UTCTimestamp(unixMillis: unixMillis).iso8601Milliseconds
    }

    private static func escaped(_ text: String) -> String {
        guard text.contains(where: { $0 == "\n" || $0 == "\r" }) else { return text }
        return text.replacingOccurrences("\n", "\\n").replacingOccurrences("\r", "\\r")
    }
}

private extension String {
    func replacingOccurrences(_ target: Character, _ replacement: String) -> String {
        var result = ""
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
