import Transport

/// One of `peernode doctor`'s checks: what it looked at, how bad a failure is, what it
/// found and what to do. Fatal: the node cannot run, and `run` refuses to start on it.
/// Warning: the node runs, degraded (for example it cannot pay without outbound liquidity).
public struct DoctorCheck: Sendable, Equatable {
    public enum Status: String, Sendable, Equatable {
        case ok, warning, fatal
    }

    /// A stable name (`bitcoind`, `txindex`, `lnd_macaroon`, ...; docs/CLI.md lists them).
    public var name: String
    public var status: Status
    public var detail: String
    /// What to do; nil when nothing needs doing.
    public var fix: String?

    public init(_ name: String, _ status: Status, _ detail: String, fix: String? = nil) {
        self.name = name
        self.status = status
        self.detail = detail
        self.fix = fix
    }

    /// The finding and what to do on one line, as `run` words a check it stops or warns on.
    public var sentence: String { detail + (fix.map { "; \($0)" } ?? "") }

    public var json: JSONValue {
        var object: [String: JSONValue] = ["name": .string(name), "status": .string(status.rawValue), "detail": .string(detail)]
        if let fix { object["fix"] = .string(fix) }
        return .object(object)
    }

    /// `FATAL    txindex       Bitcoin Core runs without -txindex; fix: ...`
    public var line: String {
        let label = status == .ok ? "ok" : status.rawValue.uppercased()
        let padded = { (text: String, width: Int) in text + String(repeating: " ", count: max(1, width - text.count)) }
        return padded(label, 9) + padded(name, 16) + detail + (fix.map { "\n" + String(repeating: " ", count: 25) + "fix: " + $0 } ?? "")
    }
}
