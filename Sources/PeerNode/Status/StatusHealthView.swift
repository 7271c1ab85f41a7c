import Transport

/// `/api/health`: `doctor`'s checks as they stand now, and what needs attention. `ok` is
/// false when a check is fatal or anything needs attention.
struct StatusHealthView: Sendable {
    let checks: [StatusCheckView]
    let attention: [StatusAttention]

    var ok: Bool { !checks.contains { $0.status == DoctorCheck.Status.fatal.rawValue } && attention.isEmpty }

    var json: JSONValue {
        .object(["ok": .bool(ok), "checks": .array(checks.map(\.json)), "attention": .array(attention.map(\.json))])
    }
}
