import Foundation
import TestSupport
import XCTest

/// Runs PyPI prometheus-client's parser (`text_string_to_metric_families`), installed
/// hash-pinned in `.build/prometheus-venv` by `scripts/setup.sh --status`, on a /metrics
/// text: an independent reading of the exposition format (`PythonTool`: a missing install
/// fails the test with the command that installs it; it never skips).
enum PrometheusParser {
    struct Family: Equatable {
        let name: String
        let type: String
        /// Each sample: its name, labels and value.
        let samples: [(name: String, labels: [String: String], value: Double)]

        static func == (lhs: Family, rhs: Family) -> Bool { lhs.name == rhs.name && lhs.type == rhs.type }

        func value(_ sample: String, _ labels: [String: String] = [:]) -> Double? {
            samples.first { $0.name == sample && $0.labels == labels }?.value
        }
    }

    static let tool = PythonTool(venv: "prometheus-venv", install: "scripts/setup.sh --status")

    static let script = """
    import json, sys
    from prometheus_client.parser import text_string_to_metric_families
    out = []
    for family in text_string_to_metric_families(sys.stdin.read()):
        out.append({"name": family.name, "type": family.type, "samples": [
            {"name": s.name, "labels": s.labels, "value": s.value} for s in family.samples]})
    json.dump(out, sys.stdout)
    """

    static func parse(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Family] {
        let data = try tool.run(["-c", script], input: Data(text.utf8), context: text, file: file, line: line)
        let list = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        var families: [String: Family] = [:]
        for item in list {
            let name = try XCTUnwrap(item["name"] as? String)
            let samples = (item["samples"] as? [[String: Any]] ?? []).map { sample in
                (name: sample["name"] as? String ?? "", labels: sample["labels"] as? [String: String] ?? [:],
                 value: (sample["value"] as? NSNumber)?.doubleValue ?? .nan)
            }
            families[name] = Family(name: name, type: item["type"] as? String ?? "", samples: samples)
        }
        return families
    }
}
