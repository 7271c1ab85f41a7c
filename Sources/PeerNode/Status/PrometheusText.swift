import Transport

/// Writes Prometheus' text exposition format (version 0.0.4): each family once, `# HELP`
/// and `# TYPE` before its samples, label values escaped, histograms as cumulative `_bucket`
/// lines with `le`, then `_sum` and `_count`. Names follow the format's conventions: base
/// units in the name (`_sat`, `_seconds`), counters ending `_total`.
struct PrometheusText {
    enum Kind: String {
        case counter, gauge, histogram
    }

    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private(set) var text = ""

    /// A family of plain samples: `samples` pairs labels with a value.
    mutating func family(_ name: String, _ kind: Kind, _ help: String, _ samples: [([(String, String)], String)]) {
        header(name, kind, help)
        for (labels, value) in samples { line(name, labels, value) }
    }

    mutating func family(_ name: String, _ kind: Kind, _ help: String, value: Int64) {
        family(name, kind, help, [([], String(value))])
    }

    /// One histogram family with a sample set per label set.
    mutating func histogram(_ name: String, _ help: String, _ series: [([(String, String)], LatencyHistogram.Snapshot)]) {
        header(name, .histogram, help)
        for (labels, snapshot) in series {
            for (bound, count) in zip(snapshot.boundsSeconds, snapshot.cumulativeCounts) {
                line(name + "_bucket", labels + [("le", Self.number(bound))], String(count))
            }
            line(name + "_bucket", labels + [("le", "+Inf")], String(snapshot.count))
            line(name + "_sum", labels, Self.number(snapshot.sumSeconds))
            line(name + "_count", labels, String(snapshot.count))
        }
    }

    /// An msat amount in sat with exactly its three decimals (`1234.567`): integer
    /// arithmetic, no float rounding.
    static func sat(fromMsat msat: Int64) -> String {
        let sign = msat < 0 ? "-" : ""
        let magnitude = msat.magnitude
        let fraction = String(magnitude % 1_000)
        return sign + String(magnitude / 1_000) + "." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    private mutating func header(_ name: String, _ kind: Kind, _ help: String) {
        text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
    }

    private mutating func line(_ name: String, _ labels: [(String, String)], _ value: String) {
        if labels.isEmpty {
            text += "\(name) \(value)\n"
        } else {
            let rendered = labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",")
            text += "\(name){\(rendered)} \(value)\n"
        }
    }

    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    private static func escapeHelp(_ text: String) -> String {
        text.replacingAll("\\", with: "\\\\").replacingAll("\n", with: "\\n")
    }

    private static func escapeLabel(_ text: String) -> String {
        text.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"").replacingAll("\n", with: "\\n")
    }
}

private extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for character in self { if character == target { out += replacement } else { out.append(character) } }
        return out
    }
}
