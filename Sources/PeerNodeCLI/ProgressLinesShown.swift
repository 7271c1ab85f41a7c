import Synchronization
import Transport

/// The progress lines an attached command has shown, by stage and detail: the engine
/// reports some steps twice (a claim's broadcast, then the same claim accepted), and a
/// person needs to read each once. `--json` shows every line as it came.
final class ProgressLinesShown: Sendable {
    private let seen = Mutex<Set<String>>([])

    /// True the first time this stage and detail come.
    func first(_ line: JSONValue) -> Bool {
        guard let stage = line["stage"]?.stringValue else { return true }
        let key = stage + "\u{0}" + (line["detail"]?.stringValue ?? "")
        return seen.withLock { $0.insert(key).inserted }
    }
}
