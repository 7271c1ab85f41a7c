import Foundation

/// Unbuffered output, so each line shows as it happens even when stdout is a pipe
/// (under `make`, or `| tee`), and a timestamped step log for the run.
enum Console {
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func err(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

/// Prints each stage of a run with the time since the run started and how long the
/// stage took: the demo's "each stage with its time".
final class StageClock {
    private let start = Date()

    /// Seconds since the run started, as `  12.34s`.
    var stamp: String { Self.seconds(Date().timeIntervalSince(start)) }

    static func seconds(_ value: TimeInterval) -> String {
        let text = String(format: "%.2fs", value)
        return String(repeating: " ", count: max(0, 8 - text.count)) + text
    }

    /// Runs one stage: a header line, its body (which may print indented detail lines),
    /// then the stage's own duration. A failure is printed as the stage's outcome and
    /// passed on.
    func stage<T>(_ title: String, _ body: () throws(Failure) -> T) throws(Failure) -> T {
        Console.out("[\(stamp)] \(title)")
        let began = Date()
        do {
            let value = try body()
            Console.out("[\(stamp)]   done: \(title) (\(Self.seconds(Date().timeIntervalSince(began)).trimmingCharacters(in: .whitespaces)))")
            return value
        } catch {
            Console.out("[\(stamp)]   FAILED: \(title): \(error)")
            throw error
        }
    }

    /// A detail line under the current stage.
    func note(_ text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            Console.out("           \(line)")
        }
    }
}
