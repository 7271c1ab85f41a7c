import PeerNode
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

    /// `2026-12-01T00:04:11Z` from unix seconds (UTC).
    static func iso8601(_ seconds: Int64) -> String {
        UTCTimestamp(unixSeconds: seconds).iso8601
    }
}
