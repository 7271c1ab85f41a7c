import Foundation
import Regtest
import TestSupport

/// One Bitcoin Core v31 fixture from `Tests/Data/fixtures/bitcoind`.
struct CoreFixture {
    let name: String
    let method: String?
    /// The params as JSON (for reading the raw transactions a case sent).
    let params: Any?
    let httpMethod: String
    let urlPath: String
    let auth: String?
    let requestBody: String?
    let httpStatus: Int
    let responseHeaders: [String: String]
    let responseBodyRaw: String

    static let directory: URL = Vectors.root.deletingLastPathComponent().appendingPathComponent("fixtures/bitcoind")

    static func all() throws -> [String: CoreFixture] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
        var fixtures: [String: CoreFixture] = [:]
        for file in files {
            let data = try Data(contentsOf: directory.appendingPathComponent(file))
            let object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
            let name = String(file.dropLast(".json".count))
            fixtures[name] = CoreFixture(
                name: name, method: object["method"] as? String, params: object["params"],
                httpMethod: object["http_method"] as? String ?? "POST", urlPath: object["url_path"] as? String ?? "/",
                auth: object["auth"] as? String, requestBody: object["request_body"] as? String,
                httpStatus: object["http_status"] as! Int,
                responseHeaders: object["response_headers"] as? [String: String] ?? [:],
                responseBodyRaw: object["response_body_raw"] as? String ?? "")
        }
        return fixtures
    }

    /// The raw transaction hex this case sent (`index` within a testmempoolaccept array).
    func rawTransaction(_ index: Int = 0) -> String {
        let params = params as! [Any]
        if let list = params[0] as? [String] { return list[index] }
        return params[0] as! String
    }

    /// The `result` member of the recorded reply.
    func result() throws -> OrderedJSON {
        try OrderedJSONParser.parse(responseBodyRaw)["result"] ?? .null
    }
}
