#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// `scenarios --jobs N`: runs up to N scenarios at once, each as a child process of this
/// program (`peernode-testnet scenarios <name>`), so each keeps its own hub, nodes, ports
/// and run directory exactly as when run alone. Most of a scenario's time is waiting for
/// blocks and processes, so two at once take about half the wall time on two cores.
///
/// A scenario whose point is load (the floods, the 50-at-once runs) runs alone: its
/// timings and the liveness it checks must not compete with another scenario's.
///
/// Each child's output is printed whole when it ends, in the order they end, so the log
/// reads as a sequential run's; the summary lists every scenario with its wall time.
struct ScenarioScheduler {
    let selection: [Scenario]
    let jobs: Int
    let run: RunContext
    let binDirectory: String

    /// Scenarios that measure or create load: never beside another.
    static func runsAlone(_ scenario: Scenario) -> Bool {
        scenario.name.hasPrefix("flood-") || scenario.name.contains("concurrent") || scenario.name.hasPrefix("soak")
    }

    private struct Running {
        let scenario: Scenario
        let process: Process
        let outputPath: String
        let started: Date
    }

    func execute() -> Int32 {
        Console.out("run directory (scenario outputs): \(run.directory); \(jobs) scenario(s) at once, load scenarios alone")
        var queue = selection[...]
        var running: [Running] = []
        var results: [(name: String, passed: Bool, detail: String, seconds: Double)] = []
        while (!queue.isEmpty || !running.isEmpty) {
            if run.live.interrupted {
                for child in running { kill(child.process.processIdentifier, SIGINT) }
                for child in running { child.process.waitUntilExit() }
                break
            }
            // Start what may start: up to `jobs`, and a load scenario only into an empty slot set.
            while let next = queue.first, running.count < jobs {
                let alone = Self.runsAlone(next)
                if alone && !running.isEmpty { break }
                if let first = running.first, Self.runsAlone(first.scenario) { break }
                queue.removeFirst()
                switch start(next) {
                case .success(let child): running.append(child)
                case .failure(let failure): results.append((next.name, false, failure.message, 0))
                }
                if alone { break }
            }
            usleep(100_000)
            for (index, child) in running.enumerated().reversed() where !child.process.isRunning {
                running.remove(at: index)
                results.append(finish(child))
            }
        }
        Console.out("")
        Console.out("scenarios:")
        for result in results {
            Console.out("  \(result.passed ? "PASS" : "FAIL")  \(result.name): \(result.detail) (\(String(format: "%.1f", result.seconds)) s)")
        }
        let total = results.reduce(0) { $0 + $1.seconds }
        Console.out("\(results.filter(\.passed).count) of \(results.count) passed; \(String(format: "%.0f", total)) s of scenario time")
        Console.out("outputs: \(run.directory)")
        if run.live.interrupted { return 130 }
        return results.count == selection.count && results.allSatisfy(\.passed) ? 0 : 1
    }

    private func start(_ scenario: Scenario) -> Result<Running, Failure> {
        let outputPath = run.directory + "/\(scenario.name).out"
        guard FileManager.default.createFile(atPath: outputPath, contents: nil),
              let output = FileHandle(forWritingAtPath: outputPath) else {
            return .failure(Failure("cannot create \(outputPath)"))
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        process.arguments = ["scenarios", scenario.name, "--bin", binDirectory]
        process.standardOutput = output
        process.standardError = output
        do {
            try process.run()
        } catch {
            return .failure(Failure("cannot start the scenario's process: \(error)"))
        }
        try? output.close()
        return .success(Running(scenario: scenario, process: process, outputPath: outputPath, started: Date()))
    }

    /// Prints the child's output and reads its verdict from its own summary line.
    private func finish(_ child: Running) -> (name: String, passed: Bool, detail: String, seconds: Double) {
        let seconds = Date().timeIntervalSince(child.started)
        let text = (try? String(contentsOfFile: child.outputPath, encoding: .utf8)) ?? ""
        Console.out("")
        Console.out(text.hasSuffix("\n") ? String(text.dropLast()) : text)
        let name = child.scenario.name
        let line = text.split(separator: "\n").last { $0.contains("  \(name): ") && ($0.contains("PASS") || $0.contains("FAIL")) }
        var detail = line.map { String($0[$0.range(of: "\(name): ")!.upperBound...]) }
            ?? "ended with status \(child.process.terminationStatus) before its summary"
        // The child's own time; the parent's, measured the same way, replaces it.
        if detail.hasSuffix(" s)"), let open = detail.range(of: " (", options: .backwards) { detail = String(detail[..<open.lowerBound]) }
        let passed = child.process.terminationStatus == 0 && line?.contains("PASS") == true
        return (name, passed, detail, seconds)
    }
}
