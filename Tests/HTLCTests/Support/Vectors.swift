import Foundation
import XCTest
import Bitcoin

/// Finds and reads the public test vectors in `../shared/vectors`, in place (never copied
/// into the repository). `PEERNODE_VECTORS` overrides the location.
enum Vectors {
    static let root: URL = {
        if let override = ProcessInfo.processInfo.environment["PEERNODE_VECTORS"] {
            return URL(fileURLWithPath: override)
        }
        // <repo>/Tests/HTLCTests/Support/Vectors.swift -> <repo>/../shared/vectors
        let repo = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return repo.deletingLastPathComponent().appendingPathComponent("shared/vectors")
    }()

    static func url(_ relativePath: String) -> URL {
        root.appendingPathComponent(relativePath)
    }

    /// The raw bytes of a vector file; a missing file fails the test (never a skip).
    static func data(_ relativePath: String, file: StaticString = #filePath, line: UInt = #line) throws -> Data {
        let url = url(relativePath)
        do {
            return try Data(contentsOf: url)
        } catch {
            XCTFail("vector file \(url.path) is missing: \(error)", file: file, line: line)
            throw error
        }
    }

    static func text(_ relativePath: String) throws -> String {
        String(decoding: try data(relativePath), as: UTF8.self)
    }

    static func json(_ relativePath: String) throws -> Any {
        try JSONSerialization.jsonObject(with: try data(relativePath), options: [.fragmentsAllowed])
    }
}

/// Hex helper for tests: a bad hex literal in a vector is a test failure, not a crash.
func bytes(_ hex: String, file: StaticString = #filePath, line: UInt = #line) -> [UInt8] {
    guard let value = [UInt8](hex: hex) else {
        XCTFail("invalid hex in vector: \(hex.prefix(40))", file: file, line: line)
        return []
    }
    return value
}
