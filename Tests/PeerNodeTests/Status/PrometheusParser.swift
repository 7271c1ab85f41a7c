import Foundation
import XCTest

/// Runs PyPI prometheus-client's parser (`text_string_to_metric_families`), installed
/// hash-pinned in `.build/prometheus-venv` by `scripts/setup.sh --status`, on a /metrics
/// text: an independent reading of the exposition format. A missing install fails the test
/// with the command that installs it; it never skips.
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

    static var python: String {
        var repo = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { repo.deleteLastPathComponent() }
        return repo.appendingPathComponent(".build/prometheus-venv/bin/python").path
    }

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
        guard FileManager.default.isExecutableFile(atPath: python) else {
            XCTFail("prometheus-client is not installed at \(python): run `scripts/setup.sh --status` (or `make setup-status`)",
                    file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let failure = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            XCTFail("prometheus-client refused the text: \(failure)\n\(text)", file: file, line: line)
            throw CocoaError(.fileReadCorruptFile)
        }
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
