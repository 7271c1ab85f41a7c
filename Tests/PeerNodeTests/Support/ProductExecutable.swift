import Foundation
import XCTest

/// How a run of a product ended and what it printed.
struct ProductOutcome: Sendable {
    let status: Int32
    let stdout: String
    let stderr: String
}

/// Runs `executable` with `arguments` to its end. Both pipes are drained together, so
/// neither can fill up and stall the child. It blocks: callers whose servers run in this
/// process run it off the cooperative pool. `environment` is added to this process's.
func runProduct(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws -> ProductOutcome {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if !environment.isEmpty {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let group = DispatchGroup()
    nonisolated(unsafe) var stderr = Data()
    group.enter()
    DispatchQueue.global().async {
        stderr = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return ProductOutcome(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                          stderr: String(decoding: stderr, as: UTF8.self))
}
