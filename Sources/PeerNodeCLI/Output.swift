#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Unbuffered writes to stdout and stderr (the C `stdout`/`stderr` globals are shared
/// mutable state Swift 6 does not let concurrent code touch).
enum Output {
    static func out(_ text: String) { write(text + "\n", to: STDOUT_FILENO) }
    static func err(_ text: String) { write(text + "\n", to: STDERR_FILENO) }

    static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }
}

/// The command line is wrong: printed with the command's usage, exit code 2.
struct UsageError: Error, CustomStringConvertible {
    let message: String
    /// The command whose help to point at ("" for the top level).
    let command: String

    init(_ message: String, command: String = "") {
        self.message = message
        self.command = command
    }

    var description: String { message }
}
