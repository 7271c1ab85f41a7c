import Bitcoin
import Foundation
import XCTest

/// Finds and reads the public test vectors in `Tests/Data/vectors` (copied from the
/// project's shared set, with their SOURCES notes). `PEERNODE_VECTORS` overrides the location. Every test target
/// uses this one helper, so the rule for finding vectors lives in one place.
public enum Vectors {
    public static let root: URL = {
        if let override = ProcessInfo.processInfo.environment["PEERNODE_VECTORS"] {
            return URL(fileURLWithPath: override)
        }
        // <repo>/Sources/TestSupport/Vectors.swift -> <repo>/Tests/Data/vectors: the vectors
        // live in the repository, so a clone alone runs every test.
        let repo = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return repo.appendingPathComponent("Tests/Data/vectors")
    }()

    public static func url(_ relativePath: String) -> URL {
        root.appendingPathComponent(relativePath)
    }

    /// The raw bytes of a vector file; a missing file fails the test (never a skip).
    public static func data(_ relativePath: String, file: StaticString = #filePath, line: UInt = #line) throws -> Data {
        let url = url(relativePath)
        do {
            return try Data(contentsOf: url)
        } catch {
            XCTFail("vector file \(url.path) is missing: \(error)", file: file, line: line)
            throw error
        }
    }

    public static func text(_ relativePath: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        String(decoding: try data(relativePath, file: file, line: line), as: UTF8.self)
    }

    /// The parsed JSON of a vector file; a missing or malformed file fails the test.
    public static func json(_ relativePath: String, file: StaticString = #filePath, line: UInt = #line) throws -> Any {
        try JSONSerialization.jsonObject(with: try data(relativePath, file: file, line: line), options: [.fragmentsAllowed])
    }
}

/// Hex helper for vectors and test literals: bad hex is a test failure, not a crash.
public func bytes(_ hex: String, file: StaticString = #filePath, line: UInt = #line) -> [UInt8] {
    guard let value = [UInt8](hex: hex) else {
        XCTFail("invalid hex: \(hex.prefix(40))", file: file, line: line)
        return []
    }
    return value
}

/// A vector field that must be there.
public struct MissingField: Error, CustomStringConvertible {
    public let name: String
    public init(name: String) { self.name = name }
    public var description: String { "vector field \(name) is missing or has the wrong type" }
}

extension Dictionary where Key == String, Value == Any {
    public func string(_ key: String) throws -> String {
        guard let value = self[key] as? String else { throw MissingField(name: key) }
        return value
    }

    /// A hex field decoded, or nil when the field is absent.
    public func optionalBytes(_ key: String) throws -> [UInt8]? {
        guard let text = self[key] as? String else { return nil }
        guard let value = [UInt8](hex: text) else { throw MissingField(name: key) }
        return value
    }

    public func bytes(_ key: String) throws -> [UInt8] {
        guard let value = try optionalBytes(key) else { throw MissingField(name: key) }
        return value
    }
}
