import Foundation

/// A daemon's resident memory from /proc/<pid>/status: the current RSS and the peak since
/// the last reset (Linux resets the peak when "5" is written to /proc/<pid>/clear_refs).
enum ProcessMemory {
    /// `VmRSS` or `VmHWM` in KiB.
    static func kibibytes(_ field: String, of node: Node) throws(Failure) -> Int64 {
        guard let pid = node.process?.processIdentifier, node.isRunning else { throw Failure("\(node.name) is not running") }
        let path = "/proc/\(pid)/status"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw Failure("cannot read \(path)") }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            if words.count >= 2, let value = Int64(words[1]) { return value }
        }
        throw Failure("\(path) has no \(field) line")
    }

    static func resetPeak(of node: Node) throws(Failure) {
        guard let pid = node.process?.processIdentifier, node.isRunning else { throw Failure("\(node.name) is not running") }
        let path = "/proc/\(pid)/clear_refs"
        guard let handle = FileHandle(forWritingAtPath: path) else { throw Failure("cannot open \(path) to reset the peak RSS") }
        defer { try? handle.close() }
        do {
            try handle.write(contentsOf: Data("5".utf8))
        } catch {
            throw Failure("cannot reset the peak RSS through \(path): \(error)")
        }
    }
}
