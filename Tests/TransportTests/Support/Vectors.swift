import Bitcoin
import Foundation
import XCTest

/// Finds and reads the public test vectors in `../shared/vectors`, in place (never copied
/// into the repository). `PEERNODE_VECTORS` overrides the location.
enum Vectors {
    static let root: URL = {
        if let override = ProcessInfo.processInfo.environment["PEERNODE_VECTORS"] {
            return URL(fileURLWithPath: override)
        }
        // <repo>/Tests/TransportTests/Support/Vectors.swift -> <repo>/../shared/vectors
        let repo = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return repo.deletingLastPathComponent().appendingPathComponent("shared/vectors")
    }()

    /// The parsed JSON of a vector file; a missing or malformed file fails the test (never a skip).
    static func json(_ relativePath: String, file: StaticString = #filePath, line: UInt = #line) throws -> Any {
        let url = root.appendingPathComponent(relativePath)
        do {
            return try JSONSerialization.jsonObject(with: try Data(contentsOf: url))
        } catch {
            XCTFail("vector file \(url.path) is missing or not JSON: \(error)", file: file, line: line)
            throw error
        }
    }
}

/// A vector field that must be there, with the file's name in the failure.
struct MissingField: Error, CustomStringConvertible {
    let name: String
    var description: String { "vector field \(name) is missing or has the wrong type" }
}

extension Dictionary where Key == String, Value == Any {
    func string(_ key: String) throws -> String {
        guard let value = self[key] as? String else { throw MissingField(name: key) }
        return value
    }

    /// A hex field decoded, or nil when the field is absent.
    func optionalBytes(_ key: String) throws -> [UInt8]? {
        guard let text = self[key] as? String else { return nil }
        guard let value = [UInt8](hex: text) else { throw MissingField(name: key) }
        return value
    }

    func bytes(_ key: String) throws -> [UInt8] {
        guard let value = try optionalBytes(key) else { throw MissingField(name: key) }
        return value
    }
}

/// Hex helper for test literals: a bad literal is a test failure, not a crash.
func bytes(_ hex: String, file: StaticString = #filePath, line: UInt = #line) -> [UInt8] {
    guard let value = [UInt8](hex: hex) else {
        XCTFail("invalid hex literal: \(hex.prefix(40))", file: file, line: line)
        return []
    }
    return value
}
