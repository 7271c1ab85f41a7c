/// A moment as a UTC calendar date and time, for ISO 8601 text in logs and `--json`
/// output without Foundation or time zone data (the proleptic Gregorian calendar).
public struct UTCTimestamp: Sendable, Hashable {
    public let year: Int64, month: Int64, day: Int64
    public let hour: Int64, minute: Int64, second: Int64, millisecond: Int64

    public init(unixMillis: Int64) {
        millisecond = ((unixMillis % 1_000) + 1_000) % 1_000
        let seconds = (unixMillis - millisecond) / 1_000
        let secondOfDay = ((seconds % 86_400) + 86_400) % 86_400
        let days = (seconds - secondOfDay) / 86_400
        // Howard Hinnant's civil-from-days: eras of 400 years counted from 0000-03-01, so
        // the leap day falls at the end of each counted year.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        hour = secondOfDay / 3_600
        minute = secondOfDay / 60 % 60
        second = secondOfDay % 60
    }

    public init(unixSeconds: Int64) { self.init(unixMillis: unixSeconds * 1_000) }

    /// `2026-12-01T00:04:11Z`.
    public var iso8601: String { dateAndTime + "Z" }

    /// `2026-12-01T00:04:11.123Z`.
    public var iso8601Milliseconds: String { dateAndTime + "." + Self.pad(millisecond, 3) + "Z" }

    private var dateAndTime: String {
        "\(Self.pad(year, 4))-\(Self.pad(month, 2))-\(Self.pad(day, 2))T"
            + "\(Self.pad(hour, 2)):\(Self.pad(minute, 2)):\(Self.pad(second, 2))"
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
