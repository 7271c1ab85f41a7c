import Foundation
import XCTest

/// The product `name` (an executable, not the directory of the same name), which sits next to
/// the test bundle in the build products directory.
func productExecutable(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
    let bundles = Bundle.allBundles.map(\.bundleURL) + [URL(fileURLWithPath: CommandLine.arguments[0])]
    for bundle in bundles {
        var directory = bundle.deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
               FileManager.default.isExecutableFile(atPath: candidate.path) {
                return candidate
            }
            directory = directory.deletingLastPathComponent()
        }
    }
    XCTFail("\(name) not found next to \(bundles); build it with `swift build --build-tests`", file: file, line: line)
    throw CocoaError(.fileNoSuchFile)
}

/// How a run of a product ended and what it printed.
struct ProductOutcome: Sendable {
    let status: Int32
    let stdout: String
    let stderr: String
}

/// Runs `executable` with `arguments` to its end. Both pipes are drained together, so
/// neither can fill up and stall the child. It blocks: callers whose servers run in this
/// process run it off the cooperative pool.
func runProduct(_ executable: URL, _ arguments: [String]) throws -> ProductOutcome {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
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
