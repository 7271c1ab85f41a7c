import Regtest
import Transport
import XCTest

/// A JSON-RPC caller over real TCP with the node's own HTTP client.
struct RPCTestClient {
    let client: HTTPClient
    let endpoint: HTTPEndpoint

    init(port: Int, credentials: HTTPBasicCredentials, loop: EventLoop) {
        var configuration = HTTPClient.Configuration(timeoutMilliseconds: 60_000)
        configuration.headers.setBasicAuthorization(credentials)
        configuration.headers.add(name: "Content-Type", value: "text/plain")
        client = HTTPClient(configuration: configuration, sleeper: loop.sleeper) { host, port in
            try await TCPConnection.connect(host: host, port: port, loop: loop)
        }
        endpoint = HTTPEndpoint(host: "127.0.0.1", port: port)
    }

    /// The raw reply to a JSON-RPC 1.0 call: HTTP status and body text.
    func raw(_ method: String, _ params: String = "[]") async throws -> (status: Int, body: String) {
        let body = "{\"jsonrpc\":\"1.0\",\"id\":\"x\",\"method\":\"\(method)\",\"params\":\(params)}"
        let response = try await client.send(HTTPRequest(method: .post, target: "/", body: Array(body.utf8)), to: endpoint)
        return (response.status.code, String(decoding: response.body, as: UTF8.self))
    }

    /// The `result` of a call that must succeed.
    func call(_ method: String, _ params: String = "[]", file: StaticString = #filePath, line: UInt = #line) async throws -> OrderedJSON {
        let (status, body) = try await raw(method, params)
        XCTAssertEqual(status, 200, "\(method): \(body)", file: file, line: line)
        let reply = try OrderedJSONParser.parse(body)
        XCTAssertEqual(reply["error"], .null, "\(method): \(body)", file: file, line: line)
        return reply["result"] ?? .null
    }

    func shutDown() async { await client.shutDown() }
}

extension OrderedJSON {
    var arrayValue: [OrderedJSON] {
        if case .array(let elements) = self { return elements }
        return []
    }

    var intValue: Int? {
        if case .number(let text) = self { return Int(text) }
        return nil
    }
}
