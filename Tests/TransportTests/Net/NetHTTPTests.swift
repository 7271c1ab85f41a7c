import Synchronization
import XCTest
@testable import Transport

/// HTTP/1.1 client and server over real loopback TCP on one event loop.
final class NetHTTPTests: XCTestCase {
    /// A TCP connector that counts its dials, so a test sees every new connection.
    private final class CountingConnector: Sendable {
        let tcp: TCPHTTPConnector
        private let count = Atomic<Int>(0)

        init(loop: EventLoop) {
            tcp = TCPHTTPConnector(loop: loop)
        }

        var dials: Int { count.load(ordering: .relaxed) }

        var connector: HTTPClient.Connector {
            { [self] host, port in
                count.add(1, ordering: .relaxed)
                return try await tcp.connect(host: host, port: port)
            }
        }
    }

    private static func echoServer(loop: EventLoop) -> HTTPServer {
        HTTPServer(sleeper: loop.sleeper) { request in
            var headers: HTTPHeaders = ["Content-Type": "application/json"]
            headers.add(name: "X-Seen-Method", value: request.method.rawValue)
            headers.add(name: "X-Seen-Auth", value: request.headers.first(name: "authorization") ?? "-")
            return HTTPResponse(status: .ok, headers: headers, body: request.body)
        }
    }

    func testContentLengthRequestAndResponse() async throws {
        let loop = try makeLoop()
        let http = try await HTTPServerListener.start(server: Self.echoServer(loop: loop), loop: loop)
        var configuration = HTTPClient.Configuration()
        configuration.headers.add(name: "Authorization", value: "Basic dXNlcjpwYXNz")
        let client = HTTPClient(configuration: configuration, loop: loop)
        let endpoint = HTTPEndpoint(host: "127.0.0.1", port: http.port)
        let body = Array(#"{"jsonrpc":"1.0","id":1,"method":"getblockchaininfo","params":[]}"#.utf8)
        let response = try await client.send(HTTPRequest(method: .post, target: "/", body: body), to: endpoint)
        XCTAssertEqual(response.status, .ok)
        XCTAssertEqual(response.body, body)
        XCTAssertEqual(response.headers.first(name: "content-length"), "\(body.count)")
        XCTAssertEqual(response.headers.first(name: "x-seen-method"), "POST")
        XCTAssertEqual(response.headers.first(name: "x-seen-auth"), "Basic dXNlcjpwYXNz")
        // A body larger than one TCP read on either side.
        let large = testPattern(count: 300_000)
        let echoed = try await client.send(HTTPRequest(method: .post, target: "/", body: large), to: endpoint)
        XCTAssertEqual(echoed.body, large)
        await client.shutDown()
        await http.close()
        await finish(loop)
    }

    func testChunkedResponse() async throws {
        let loop = try makeLoop()
        let server = HTTPServer(sleeper: loop.sleeper) { _ in
            let pieces = ["alpha ", "beta ", String(repeating: "g", count: 100_000)]
            return .streaming(HTTPStreamingResponse(headers: ["Content-Type": "text/plain"], body: AsyncThrowingStream { continuation in
                for piece in pieces { continuation.yield(Array(piece.utf8)) }
                continuation.finish()
            }))
        }
        let http = try await HTTPServerListener.start(server: server, loop: loop)
        let connector = CountingConnector(loop: loop)
        let client = HTTPClient(sleeper: loop.sleeper, connector: connector.connector)
        let endpoint = HTTPEndpoint(host: "127.0.0.1", port: http.port)
        for _ in 0..<3 {
            let response = try await client.send(HTTPRequest(target: "/chunked"), to: endpoint)
            XCTAssertEqual(response.headers.first(name: "transfer-encoding"), "chunked")
            XCTAssertNil(response.headers.first(name: "content-length"))
            XCTAssertEqual(RawHTTP.text(response.body), "alpha beta " + String(repeating: "g", count: 100_000))
        }
        XCTAssertEqual(connector.dials, 1, "a chunked body ends cleanly, so its connection is reused")
        await client.shutDown()
        await http.close()
        await finish(loop)
    }

    func testKeepAliveReusesOneTCPConnection() async throws {
        let loop = try makeLoop()
        let http = try await HTTPServerListener.start(server: Self.echoServer(loop: loop), loop: loop)
        let connector = CountingConnector(loop: loop)
        let client = HTTPClient(sleeper: loop.sleeper, connector: connector.connector)
        let endpoint = HTTPEndpoint(host: "127.0.0.1", port: http.port)
        for index in 0..<10 {
            let response = try await client.send(
                HTTPRequest(method: .post, target: "/", body: Array("request \(index)".utf8)), to: endpoint)
            XCTAssertEqual(RawHTTP.text(response.body), "request \(index)")
        }
        XCTAssertEqual(connector.dials, 1)
        let open = await client.openConnectionCount(to: endpoint)
        XCTAssertEqual(open, 1)
        let accepted = await http.listener.activeConnections
        XCTAssertEqual(accepted, 1, "the server saw one TCP connection")
        await client.shutDown()
        await http.close()
        await finish(loop)
    }

    /// LND streams newline-delimited JSON: each line reaches the caller while the server
    /// still holds the response open (it sends line two only after line one was read).
    func testStreamedChunkedResponseIsReadLineByLine() async throws {
        let loop = try makeLoop()
        let (gate, openGate) = AsyncStream<Void>.makeStream()
        let server = HTTPServer(sleeper: loop.sleeper) { _ in
            let (body, writer) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
            Task {
                writer.yield(Array(#"{"result":{"state":"OPEN"}}"#.utf8) + [0x0A])
                for await _ in gate { break }
                // Split across chunks, with a blank line in between.
                writer.yield(Array("\n{\"result\":{\"state\":".utf8))
                writer.yield(Array("\"SETTLED\"}}\n".utf8))
                writer.finish()
            }
            return .streaming(HTTPStreamingResponse(headers: ["Content-Type": "application/json"], body: body))
        }
        let http = try await HTTPServerListener.start(server: server, loop: loop)
        let client = HTTPClient(loop: loop)
        let stream = try await client.stream(HTTPRequest(target: "/v2/invoices/subscribe/abc"),
                                             to: HTTPEndpoint(host: "127.0.0.1", port: http.port))
        XCTAssertEqual(stream.response.status, .ok)
        XCTAssertEqual(stream.response.headers.first(name: "transfer-encoding"), "chunked")
        var lines: [String] = []
        for try await line in stream.lines {
            lines.append(RawHTTP.text(line))
            if lines.count == 1 {
                openGate.yield()
                openGate.finish()
            }
        }
        XCTAssertEqual(lines, [#"{"result":{"state":"OPEN"}}"#, #"{"result":{"state":"SETTLED"}}"#])
        await client.shutDown()
        await http.close()
        await finish(loop)
    }

    /// A raw TCP server that answers with garbage: the client reports an error, keeps
    /// working, and the next (well-formed) answer on a fresh connection succeeds.
    func testMalformedResponseIsAnErrorNotACrash() async throws {
        let loop = try makeLoop()
        let listener = try await TCPListener.bind(host: "127.0.0.1", port: 0, loop: loop)
        let server = Task {
            var served = 0
            while let connection = try await listener.accept() {
                _ = try await RawHTTP.readHead(connection)
                let answer = served == 0
                    ? "\u{01}\u{02}garbage that is not HTTP\r\n\r\n"
                    : "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
                try await connection.write(Array(answer.utf8))
                await connection.close()
                served += 1
            }
            return served
        }
        let client = HTTPClient(loop: loop)
        let endpoint = HTTPEndpoint(host: "127.0.0.1", port: listener.port)
        do {
            _ = try await client.send(HTTPRequest(method: .post, target: "/", body: [1]), to: endpoint)
            XCTFail("garbage must not parse as a response")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .invalidStartLine)
        }
        let recovered = try await client.send(HTTPRequest(target: "/"), to: endpoint)
        XCTAssertEqual(RawHTTP.text(recovered.body), "ok")
        await client.shutDown()
        await listener.close()
        let served = try await server.value
        XCTAssertEqual(served, 2)
        await finish(loop)
    }
}
