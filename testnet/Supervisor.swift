#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// Starts child processes with their output in log files of the run directory, and
/// ends them: SIGTERM, then SIGKILL after a grace period. It knows only the processes it
/// started (by their `Process` object, never by name), so tearing down can never touch
/// anything else on the machine. Thread-safe: the Ctrl-C handler tears down from another
/// thread while the run may be starting a process.
final class Supervisor: Sendable {
    struct Child {
        let name: String
        let process: Process
        let log: String
        /// Daemons and the hub are stopped last-started-first; the hub goes last.
        let isHub: Bool
    }

    let runDirectory: String
    let grace: TimeInterval
    private let children = Mutex<[Child]>([])
    /// Set once teardown starts: nothing new may be started after it.
    private let closing = Mutex<Bool>(false)
    /// Held for the whole teardown, so a second caller (the run ending while Ctrl-C's
    /// teardown is under way) waits until every process is really gone.
    private let tearingDown = Mutex<Void>(())

    init(runDirectory: String, grace: TimeInterval = 10) {
        self.runDirectory = runDirectory
        self.grace = grace
    }

    /// Starts `executable` with stdout and stderr appended to `<run dir>/<logName>`;
    /// `environment` is added to this program's own (the crash scenarios arm a crash point
    /// that way). An existing log is appended to, so a restarted daemon keeps its history.
    @discardableResult
    func start(_ name: String, executable: String, arguments: [String], logName: String, isHub: Bool = false,
               environment: [String: String] = [:]) throws(Failure) -> Process {
        let log = runDirectory + "/" + logName
        guard FileManager.default.fileExists(atPath: log) || FileManager.default.createFile(atPath: log, contents: nil),
              let handle = FileHandle(forWritingAtPath: log) else {
            throw Failure("cannot create the log file \(log)")
        }
        defer { try? handle.close() }
        handle.seekToEndOfFile()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        try launch(process, name: name, log: log, isHub: isHub)
        return process
    }

    /// Starts an already configured process and tracks it until `release` or teardown
    /// (the short `peernode` commands the run sends, so Ctrl-C ends them too).
    func launch(_ process: Process, name: String, log: String = "", isHub: Bool = false) throws(Failure) {
        try closing.withLock { closing throws(Failure) in
            guard !closing else { throw Failure("the run is stopping; not starting \(name)") }
            do {
                try process.run()
            } catch {
                throw Failure("cannot start \(name) (\(process.executableURL?.path ?? "?")): \(error)")
            }
        }
        children.withLock { $0.append(Child(name: name, process: process, log: log, isHub: isHub)) }
    }

    /// Forgets a process that has exited by itself.
    func release(_ process: Process) {
        children.withLock { list in list.removeAll { $0.process === process } }
    }

    func log(of process: Process) -> String? {
        children.withLock { list in list.first { $0.process === process }?.log }
    }

    /// Stops one process (SIGTERM, SIGKILL after the grace period) and returns how it
    /// ended, as text.
    @discardableResult
    func stop(_ process: Process) -> String {
        let name = children.withLock { list in list.first { $0.process === process }?.name } ?? "process"
        defer { release(process) }
        return Self.end(process, name: name, grace: grace)
    }

    /// Stops everything still running: every node at once (they shut down in parallel),
    /// then the hub, so the nodes never lose their backends while they shut down.
    func stopAll() -> [String] {
        tearingDown.withLock { _ in stopEverything() }
    }

    private func stopEverything() -> [String] {
        closing.withLock { $0 = true }
        let all = children.withLock { list in
            let taken = list
            list.removeAll()
            return taken
        }
        var outcomes: [String] = []
        let nodes = all.filter { !$0.isHub }.reversed()
        let signalled = nodes.filter(\.process.isRunning)
        for child in signalled { child.process.terminate() }
        for child in nodes {
            outcomes.append(Self.end(child.process, name: child.name, grace: grace,
                                     signalled: signalled.contains { $0.process === child.process }))
        }
        for child in all where child.isHub { outcomes.append(Self.end(child.process, name: child.name, grace: grace)) }
        return outcomes
    }

    /// SIGTERM (unless `signalled` already), the grace period, then SIGKILL.
    private static func end(_ process: Process, name: String, grace: TimeInterval, signalled: Bool = false) -> String {
        if !signalled {
            guard process.isRunning else { return "\(name): had exited (\(describe(process)))" }
            process.terminate()
        }
        let deadline = Date().addingTimeInterval(grace)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return "\(name): did not stop within \(Int(grace)) s of SIGTERM; killed"
        }
        process.waitUntilExit()
        return "\(name): stopped (\(describe(process)))"
    }

    static func describe(_ process: Process) -> String {
        switch process.terminationReason {
        case .exit: return "exit \(process.terminationStatus)"
        case .uncaughtSignal: return "signal \(process.terminationStatus)"
        @unknown default: return "status \(process.terminationStatus)"
        }
    }
}
