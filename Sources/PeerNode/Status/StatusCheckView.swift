import Transport

/// One health check as the status API shows it: `doctor`'s name, status, finding and fix.
/// Built from a `DoctorCheck`, whose texts name paths and URLs, never credentials.
struct StatusCheckView: Sendable {
    let name: String
    let status: String
    let detail: String
    let fix: String?

    init(_ check: DoctorCheck) {
        name = check.name
        status = check.status.rawValue
        detail = check.detail
        fix = check.fix
    }

    var json: JSONValue {
        .object(["name": .string(name), "status": .string(status), "detail": .string(detail),
                 "fix": fix.map { .string($0) } ?? .null])
    }
}
