import Foundation
import PeerNode
import Transport
import XCTest

/// Talks HTTP to a daemon's status API on loopback, as a script or a browser would.
struct StatusHTTP {
    let client: HTTPClient
    let port: Int

    init(port: Int, loop: EventLoop) {
        self.port = port
        client = HTTPClient(configuration: HTTPClient.Configuration(timeoutMilliseconds: 30_000), sleeper: loop.sleeper,
                            connector: { host, port in try await TCPConnection.connect(host: host, port: port, loop: loop) })
    }

    func get(_ path: String, bearer: String? = nil, cookie: String? = nil) async throws -> HTTPResponse {
        var headers = HTTPHeaders()
        if let bearer { headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        if let cookie { headers.add(name: "Cookie", value: cookie) }
        return try await client.send(HTTPRequest(method: .get, target: path, headers: headers),
                                     to: HTTPEndpoint(host: "127.0.0.1", port: port))
    }

    func post(_ path: String, form: String) async throws -> HTTPResponse {
        try await client.send(HTTPRequest(method: .post, target: path,
                                          headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array(form.utf8)),
                              to: HTTPEndpoint(host: "127.0.0.1", port: port))
    }

    func json(_ path: String, token: String, file: StaticString = #filePath, line: UInt = #line) async throws -> JSONValue {
        let response = try await get(path, bearer: token)
        XCTAssertEqual(response.status.code, 200, "\(path): \(String(decoding: response.body, as: UTF8.self))", file: file, line: line)
        return try JSONParser.parse(response.body, limits: JSONParser.Limits(maxLength: 16 * 1024 * 1024, maxDepth: 32))
    }

    func shutDown() async { await client.shutDown() }

    /// The token `peernode run` wrote into the data directory.
    static func token(datadir: String) throws -> String {
        try String(contentsOfFile: datadir + "/status.token", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
