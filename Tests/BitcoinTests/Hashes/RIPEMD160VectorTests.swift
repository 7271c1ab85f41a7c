import TestSupport
import XCTest
@testable import Bitcoin

/// RIPEMD-160 and HASH160 against `Tests/Data/vectors/ripemd160`.
final class RIPEMD160VectorTests: XCTestCase {
    private func load() throws -> [String: Any] {
        try XCTUnwrap(try Vectors.json("ripemd160/ripemd160_vectors.json") as? [String: Any])
    }

    func testPublishedVectors() throws {
        let rows = try XCTUnwrap(try load()["published_vectors"] as? [[String: Any]])
        XCTAssertEqual(rows.count, 9, "published vector count")
        for row in rows {
            let message: [UInt8]
            if let repeatSpec = row["repeat"] as? [String: Any] {
                let unit = Array(try XCTUnwrap(repeatSpec["string"] as? String).utf8)
                let count = try XCTUnwrap(repeatSpec["count"] as? Int)
                message = Array([[UInt8]](repeating: unit, count: count).joined())
            } else {
                message = bytes(try XCTUnwrap(row["message_hex"] as? String))
            }
            XCTAssertEqual(message.count, row["length"] as? Int)
            XCTAssertEqual(RIPEMD160.hash(message).hex, row["ripemd160"] as? String, "\(row["label"] ?? "")")
        }
    }

    func testPaddingBoundaries() throws {
        let rows = try XCTUnwrap(try load()["computed_boundary_vectors"] as? [[String: Any]])
        XCTAssertEqual(rows.count, 13, "boundary vector count")
        for row in rows {
            let message = bytes(try XCTUnwrap(row["message_hex"] as? String))
            XCTAssertEqual(message.count, row["length"] as? Int)
            XCTAssertEqual(RIPEMD160.hash(message).hex, row["ripemd160"] as? String, "length \(message.count)")
        }
    }

    func testHash160Examples() throws {
        let rows = try XCTUnwrap(try load()["hash160_examples"] as? [[String: Any]])
        XCTAssertEqual(rows.count, 2, "hash160 example count")
        for row in rows {
            let input = bytes(try XCTUnwrap(row["input_hex"] as? String))
            XCTAssertEqual(SHA256.hash(input).hex, row["sha256"] as? String)
            XCTAssertEqual(Hash160.hash(input).hex, row["hash160"] as? String)
        }
    }
}
