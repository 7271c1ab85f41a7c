/// How much a log line matters, read from what it reports: the engines and the daemon
/// write plain sentences, and the few kinds are told apart by their words, so every call
/// site keeps its one-argument `log(...)`.
public enum LogLevel: String, Sendable, Equatable {
    /// Routine: a state reached, an address listened on, a transaction broadcast.
    case info = "INFO"
    /// Something failed and will be retried or was survived: a refused broadcast, an
    /// unreachable backend, a lock that could not be built.
    case warn = "WARN"
    /// Funds may be at stake and a person should look (a lock spent without a preimage).
    case alarm = "ALARM"

    /// The level of `line`: `ALARM` when it starts so, `WARN` when it reports a failure.
    public static func of(_ line: String) -> LogLevel {
        if line.hasPrefix("ALARM") { return .alarm }
        // The daemon's start-up warnings (a doctor warning, a status API off loopback).
        if line.hasPrefix("warning") { return .warn }
        return containsFailureWord(line) ? .warn : .info
    }

    private static let failureWords: [[UInt8]] = ["failed", "cannot ", "refused", "unreachable", "error"].map { Array($0.utf8) }

    /// One pass over the line's UTF-8 bytes for all the words (case-sensitive, anywhere in
    /// it). Every line the daemon writes comes here: five `String.contains` searches were
    /// about 6 % of a client daemon's CPU in the swap benchmark (docs/PERFORMANCE.md).
    private static func containsFailureWord(_ line: String) -> Bool {
        var line = line
        return line.withUTF8 { bytes in
            bytes.indices.contains { start in failureWords.contains { bytes[start...].starts(with: $0) } }
        }
    }
}
