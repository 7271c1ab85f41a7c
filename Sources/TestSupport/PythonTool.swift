import Foundation
import XCTest

/// A Python program from a hash-pinned venv under `.build` (installed by `scripts/setup.sh`),
/// run as an independent check of our own code: prometheus-client's parser on /metrics,
/// dnspython on the pkarr codec. A missing install fails the test with the command that
/// installs it; it never skips.
public struct PythonTool: Sendable {
    /// The venv's folder under `.build` (`prometheus-venv`).
    public let venv: String
    /// What installs it, for the failure message (`scripts/setup.sh --status`).
    public let install: String

    public init(venv: String, install: String) {
        self.venv = venv
        self.install = install
    }

    /// The repository root: <repo>/Sources/TestSupport/PythonTool.swift.
    public static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    public var python: String { Self.repository.appendingPathComponent(".build/\(venv)/bin/python").path }

    /// Runs `arguments` (a script path or `-c <code>` and its arguments) with `input` on
    /// stdin; a non-zero exit fails the test with the tool's stderr and `context` (what it
    /// was given, when that helps).
    public func run(_ arguments: [String], input: Data = Data(), context: String = "",
                    file: StaticString = #filePath, line: UInt = #line) throws -> Data {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            XCTFail("\(venv) is not installed at \(python): run `\(install)`", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let failure = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            XCTFail("\(venv) refused the input: \(failure)\(context.isEmpty ? "" : "\n" + context)", file: file, line: line)
            throw CocoaError(.fileReadCorruptFile)
        }
        return output
    }
}
