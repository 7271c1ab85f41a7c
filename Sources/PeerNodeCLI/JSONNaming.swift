import Transport

/// One naming scheme for `--json` across commands (docs/CLI.md): amounts end in `_sat`
/// (`_msat` on Lightning), fee rates in `_sat_vb`, and every time is a `*_at` field in unix
/// seconds with a `*_at_iso` ISO 8601 (UTC) twin beside it. The daemon's older time fields
/// (`valid_until_unix`, a progress line's `at_unix`) keep their names and gain the `_at` pair.
enum JSONNaming {
    static func normalized(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            var out: [String: JSONValue] = [:]
            for (key, member) in members {
                out[key] = normalized(member)
                guard case .number = member, let seconds = member.int64Value else { continue }
                if key == "at" || key.hasSuffix("_at") {
                    out[key + "_iso"] = .string(iso8601(seconds))
                } else if key.hasSuffix("_unix") {
                    let stem = String(key.dropLast("_unix".count))
                    let base = stem == "at" ? "at" : stem + "_at"
                    if members[base] == nil { out[base] = .integer(seconds) }
                    out[base + "_iso"] = .string(iso8601(seconds))
                }
            }
            return .object(out)
        case .array(let items):
            return .array(items.map(normalized))
        default:
            return value
        }
    }

    /// `2026-12-01T00:04:11Z` from unix seconds (the proleptic Gregorian calendar, UTC).
    static func iso8601(_ seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Howard Hinnant's days-to-civil.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(secondOfDay / 3_600)):\(two(secondOfDay % 3_600 / 60)):\(two(secondOfDay % 60))Z"
    }
}
