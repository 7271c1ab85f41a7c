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

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`, from the civil-from-days algorithm (no time zone data,
    /// no Foundation).
    public static func timestamp(unixMillis: Int64) -> String {
        let millis = ((unixMillis % 1_000) + 1_000) % 1_000
        let seconds = (unixMillis - millis) / 1_000
        let secondOfDay = ((seconds % 86_400) + 86_400) % 86_400
        let days = (seconds - secondOfDay) / 86_400
        // Howard Hinnant's days_from_civil, inverted: eras of 400 years from 0000-03-01.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3_600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(millis, 3))Z"
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
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
