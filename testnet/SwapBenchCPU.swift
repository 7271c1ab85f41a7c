#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// CPU time (user + system) from /proc: of a running process, and of this program's
/// children that have ended (the `peernode` commands it ran). Where a burst's CPU goes
/// tells whether a figure is bounded by the machine's cores or by waiting.
enum ProcessCPU {
    /// Milliseconds of CPU `pid` has used; with `children`, those of its ended and
    /// waited-for children instead (fields 14-15, or 16-17, of /proc/<pid>/stat).
    static func milliseconds(pid: Int32, children: Bool = false) throws(Failure) -> Double {
        let path = "/proc/\(pid)/stat"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8), let close = text.lastIndex(of: ")") else {
            throw Failure("cannot read \(path)")
        }
        // After the command name (in parentheses, which may hold spaces) come fields 3...
        let fields = text[text.index(after: close)...].split(separator: " ")
        let first = children ? 13 : 11
        guard fields.count > first + 1, let user = Double(fields[first]), let system = Double(fields[first + 1]) else {
            throw Failure("\(path) is not as expected: \(text.prefix(200))")
        }
        return (user + system) * 1_000 / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func milliseconds(of node: Node) throws(Failure) -> Double {
        guard let pid = node.process?.processIdentifier, node.isRunning else { throw Failure("\(node.name) is not running") }
        return try milliseconds(pid: pid)
    }
}

/// CPU used by each part of the network over an interval.
struct CPUShare {
    let parts: [(name: String, milliseconds: Double)]

    var total: Double { parts.reduce(0) { $0 + $1.milliseconds } }

    /// The parts named, together: issue 21 counts the node's own processes (the provider,
    /// the client daemons and the `pay` commands), not the hub, the payee or the runner.
    func milliseconds(of names: Set<String>) -> Double {
        parts.filter { names.contains($0.name) }.reduce(0) { $0 + $1.milliseconds }
    }

    /// `name 12.3 ms (45 %), ...` per swap.
    func perSwap(_ swaps: Int) -> String {
        parts.map { part in
            "\(part.name) " + String(format: "%.1f ms (%.0f %%)", part.milliseconds / Double(swaps),
                                     total > 0 ? part.milliseconds / total * 100 : 0)
        }.joined(separator: ", ")
    }
}
