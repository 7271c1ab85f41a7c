import Transport

/// Every check `doctor` made, in order. Exit 0 when none is fatal (warnings allowed),
/// 1 when one is (docs/CLI.md).
public struct DoctorReport: Sendable, Equatable {
    public var checks: [DoctorCheck]

    public init(checks: [DoctorCheck]) {
        self.checks = checks
    }

    public var fatal: [DoctorCheck] { checks.filter { $0.status == .fatal } }
    public var warnings: [DoctorCheck] { checks.filter { $0.status == .warning } }

    public var exitCode: Int32 { fatal.isEmpty ? ExitCode.success : ExitCode.failure }

    public func check(_ name: String) -> DoctorCheck? { checks.first { $0.name == name } }

    public var json: JSONValue {
        .object(["ok": .bool(fatal.isEmpty), "fatal": .integer(fatal.count), "warnings": .integer(warnings.count),
                 "checks": .array(checks.map(\.json))])
    }

    public var text: String {
        let summary = fatal.isEmpty
            ? "no fatal problem" + (warnings.isEmpty ? "" : " (\(warnings.count) warning\(warnings.count == 1 ? "" : "s"))") + ": `peernode run` can start"
            : "\(fatal.count) fatal problem\(fatal.count == 1 ? "" : "s"): `peernode run` refuses to start until fixed"
        return (checks.map(\.line) + ["", summary]).joined(separator: "\n")
    }
}
