import Foundation
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
        process.executableURL = try executable(file: file, line: line)
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

    private static func executable(file: StaticString, line: UInt) throws -> URL {
        let bundles = Bundle.allBundles.map(\.bundleURL) + [URL(fileURLWithPath: CommandLine.arguments[0])]
        for bundle in bundles {
            var directory = bundle.deletingLastPathComponent()
            for _ in 0..<3 {
                let candidate = directory.appendingPathComponent("peernode-regtest")
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                directory = directory.deletingLastPathComponent()
            }
        }
        XCTFail("peernode-regtest not found next to \(bundles); build it with `swift build --build-tests`", file: file, line: line)
        throw CocoaError(.fileNoSuchFile)
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
