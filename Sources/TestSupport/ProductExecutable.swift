import Foundation
import XCTest

/// The built executable product `name` (not a directory of that name) next to the test bundle.
public func productExecutable(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
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
