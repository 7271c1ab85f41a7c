import Foundation
import TestSupport
import XCTest

/// One Bitcoin Core v31.0 answer from `Tests/Data/fixtures/bitcoind`: the request that was
/// made and the HTTP status and exact body Core sent back.
struct CoreFixture {
    let name: String
    let method: String?
    let params: Any?
    let httpStatus: Int
    let responseHeaders: [(String, String)]
    let responseBodyRaw: String
    /// The parsed body (nil when empty or not JSON), read independently of the client.
    let responseBody: [String: Any]?

    static let directory: URL = Vectors.root.deletingLastPathComponent().appendingPathComponent("fixtures/bitcoind")

    static func allNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") }
            .map { String($0.dropLast(5)) }
            .sorted()
    }

    static func load(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> CoreFixture {
        let url = directory.appendingPathComponent(name + ".json")
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            XCTFail("fixture \(url.path) is missing: \(error)", file: file, line: line)
            throw error
        }
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any], file: file, line: line)
        let raw = try XCTUnwrap(object["response_body_raw"] as? String, file: file, line: line)
        // Member order of the headers does not matter to the client; keep them all.
        let headers = (object["response_headers"] as? [String: String] ?? [:]).map { ($0.key, $0.value) }
        let body = (try? JSONSerialization.jsonObject(with: Data(raw.utf8), options: [.fragmentsAllowed])) as? [String: Any]
        return CoreFixture(name: name, method: object["method"] as? String, params: object["params"],
                           httpStatus: try XCTUnwrap(object["http_status"] as? Int, file: file, line: line),
                           responseHeaders: headers, responseBodyRaw: raw, responseBody: body)
    }

    var paramsArray: [Any] { params as? [Any] ?? [] }

    /// The `result` member; NSNull for a JSON null.
    var result: Any? { responseBody?["result"] }

    /// The JSON-RPC error Core answered with, if any.
    var rpcError: (code: Int, message: String)? {
        guard let error = responseBody?["error"] as? [String: Any],
              let code = error["code"] as? Int, let message = error["message"] as? String else { return nil }
        return (code, message)
    }
}

/// Exact satoshis of a BTC amount as the test reads it: the fixture's decimal text has 8
/// places, so scaling and rounding the parsed Double recovers it (an oracle independent
/// of the client's text parser).
func satoshis(_ btc: Any?) -> Int64? {
    guard let number = btc as? NSNumber else { return nil }
    return Int64((number.doubleValue * 100_000_000).rounded())
}
