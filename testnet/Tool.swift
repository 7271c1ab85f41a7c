#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// One run of a short command (`peernode status`, `peernode pay`, ...): its exit code and
/// output. stdout goes to a scratch file, so a large result never blocks the child while
/// stderr (progress lines) is read as it comes.
struct ToolResult {
    let status: Int32
    let stdout: String
    let stderr: String

    var ok: Bool { status == 0 }
    /// The result (`--json`) as an object.
    var json: [String: Any]? { JSON.parse(stdout.trimmingCharacters(in: .whitespacesAndNewlines)) as? [String: Any] }
    /// What the command said when it failed: the daemon's message on stderr, without
    /// the JSON progress lines that came before it.
    var failureText: String {
        let text = stderr.split(separator: "\n").filter { !$0.hasPrefix("{") }.joined(separator: "\n")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? stdout.trimmingCharacters(in: .whitespacesAndNewlines) : text
    }
}

struct ToolRunner {
    let supervisor: Supervisor
    /// Where scratch files go (the run directory).
    let scratch: String

    /// Runs `executable arguments`, calling `line` with each stderr line as it arrives;
    /// a command still running after `timeout` is stopped and reported as a failure.
    func run(_ executable: String, _ arguments: [String], timeout: TimeInterval, environment: [String: String] = [:],
             line: ((String) -> Void)? = nil) throws(Failure) -> ToolResult {
        let outPath = scratch + "/.tool-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).out"
        guard FileManager.default.createFile(atPath: outPath, contents: nil),
              let outHandle = FileHandle(forWritingAtPath: outPath) else {
            throw Failure("cannot create \(outPath)")
        }
        defer { try? FileManager.default.removeItem(atPath: outPath) }
        let errPipe = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = outHandle
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let name = ([URL(fileURLWithPath: executable).lastPathComponent] + arguments.prefix(2)).joined(separator: " ")
        try supervisor.launch(process, name: name)
        try? outHandle.close()
        try? errPipe.fileHandleForWriting.close()

        // stderr is read until the command closes it (it exits); past the deadline the
        // command is stopped instead.
        let deadline = Date().addingTimeInterval(timeout)
        let reader = errPipe.fileHandleForReading
        let fd = reader.fileDescriptor
        var pending: [UInt8] = []
        var stderr = ""
        var timedOut = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 {
                timedOut = true
                break
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining, 1) * 1000))
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { continue }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            pending += buffer[..<count]
            while let newline = pending.firstIndex(of: 10) {
                let text = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                stderr += text + "\n"
                line?(text)
            }
        }
        if !pending.isEmpty {
            let text = String(decoding: pending, as: UTF8.self)
            stderr += text
            line?(text)
        }
        try? reader.close()
        if timedOut {
            let ending = supervisor.stop(process)
            throw Failure("`\(name)` did not finish within \(Int(timeout)) s (\(ending))")
        }
        process.waitUntilExit()
        supervisor.release(process)
        let stdout = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        if process.terminationReason == .uncaughtSignal {
            throw Failure("`\(name)` died of signal \(process.terminationStatus): \(stderr)")
        }
        return ToolResult(status: process.terminationStatus, stdout: stdout, stderr: stderr)
    }
}
