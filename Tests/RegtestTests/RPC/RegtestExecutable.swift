import Foundation
import TestSupport
import XCTest

/// `peernode-regtest` running as a user runs it, and the endpoints object it printed as its
/// first line.
struct RegtestExecutable {
    let process: Process
    let printed: [String: Any]

    /// Starts the executable, which sits next to the test bundle in the build products
    /// directory, with `arguments`, and reads the first line it prints.
    static func start(arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> RegtestExecutable {
        let process = Process()
        process.executableURL = try productExecutable("peernode-regtest", file: file, line: line)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        do {
            var firstLine = Data()
            while !firstLine.contains(0x0a) {
                let chunk = output.fileHandleForReading.availableData
                guard !chunk.isEmpty else { break }
                firstLine += chunk
            }
            let printed = try XCTUnwrap(JSONSerialization.jsonObject(with: firstLine) as? [String: Any], file: file, line: line)
            return RegtestExecutable(process: process, printed: printed)
        } catch {
            if process.isRunning { process.interrupt() }
            throw error
        }
    }

    /// Interrupts the process if it still runs (for a `defer`).
    func interruptIfRunning() {
        if process.isRunning { process.interrupt() }
    }

    /// Sends SIGTERM and asserts the process stops within 5 s with exit status 0.
    func terminateAndExpectCleanExit(file: StaticString = #filePath, line: UInt = #line) async throws {
        process.terminate() // SIGTERM
        for _ in 0..<100 where process.isRunning { try await Task.sleep(nanoseconds: 50_000_000) }
        XCTAssertFalse(process.isRunning, "stopped within 5 s of SIGTERM", file: file, line: line)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit, file: file, line: line)
        XCTAssertEqual(process.terminationStatus, 0, file: file, line: line)
    }
}
