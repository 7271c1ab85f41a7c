import Synchronization
import TestSupport
import XCTest
@testable import Transport

final class HTTPClientServerTests: XCTestCase {
    private let endpoint = HTTPTestNetwork.endpoint

    /// Answers `/echo` with the request body and a summary of what the server saw.
    private static func echoServer(sleeper: any Sleeper = TaskSleeper()) -> HTTPServer {
        HTTPServer(sleeper: sleeper) { request in
            var headers: HTTPHeaders = ["Content-Type": "application/octet-stream"]
            headers.add(name: "X-Seen-Method", value: request.method.rawValue)
            headers.add(name: "X-Seen-Host", value: request.headers.first(name: "host") ?? "-")
            headers.add(name: "X-Seen-Length", value: request.headers.first(name: "content-length") ?? "-")
            return HTTPResponse(status: .ok, headers: headers, body: request.body)
        }
    }

    func testContentLengthRoundTrip() async throws {
        let network = HTTPTestNetwork(server: Self.echoServer())
        let client = network.client()
        let body = Array("{\"jsonrpc\":\"1.0\",\"method\":\"getblockchaininfo\"}".utf8)
        let response = try await client.send(HTTPRequest(method: .post, target: "/", body: body), to: endpoint)
        XCTAssertEqual(response.status, .ok)
        XCTAssertEqual(response.body, body)
        XCTAssertEqual(response.headers.first(name: "x-seen-method"), "POST")
        XCTAssertEqual(response.headers.first(name: "x-seen-host"), "127.0.0.1:18443")
        XCTAssertEqual(response.headers.first(name: "x-seen-length"), "\(body.count)")
        XCTAssertEqual(response.headers.first(name: "content-length"), "\(body.count)")
        await client.shutDown()
    }

    func testChunkedRoundTrip() async throws {
        let server = HTTPServer(sleeper: TaskSleeper()) { request in
            let pieces = ["alpha ", "beta ", String(repeating: "g", count: 5000)]
            return .streaming(HTTPStreamingResponse(headers: ["Content-Type": "text/plain"], body: AsyncThrowingStream { continuation in
                for piece in pieces { continuation.yield(Array(piece.utf8)) }
                continuation.finish()
            }))
        }
        let network = HTTPTestNetwork(server: server)
        let client = network.client()
        for _ in 0..<3 {
            let response = try await client.send(HTTPRequest(target: "/chunked"), to: endpoint)
            XCTAssertEqual(response.headers.first(name: "transfer-encoding"), "chunked")
            XCTAssertNil(response.headers.first(name: "content-length"))
            XCTAssertEqual(RawHTTP.text(response.body), "alpha beta " + String(repeating: "g", count: 5000))
        }
        // Chunked bodies end cleanly, so the connection stays in use.
        XCTAssertEqual(network.dials, 1)
        await client.shutDown()
    }

    func testKeepAliveReusesOneConnection() async throws {
        let network = HTTPTestNetwork(server: Self.echoServer())
        let client = network.client()
        for index in 0..<5 {
            let response = try await client.send(
                HTTPRequest(method: .post, target: "/", body: Array("\(index)".utf8)), to: endpoint)
            XCTAssertEqual(response.body, Array("\(index)".utf8))
        }
        XCTAssertEqual(network.dials, 1)
        let open = await client.openConnectionCount(to: endpoint)
        XCTAssertEqual(open, 1)
        await client.shutDown()
    }

    func testConnectionCloseIsHonoured() async throws {
        let server = HTTPServer(sleeper: TaskSleeper()) { _ in
            HTTPResponse(status: .ok, headers: ["Connection": "close"], body: Array("bye".utf8))
        }
        let network = HTTPTestNetwork(server: server)
        let client = network.client()
        for _ in 0..<3 {
            let response = try await client.send(HTTPRequest(target: "/"), to: endpoint)
            XCTAssertEqual(response.body, Array("bye".utf8))
        }
        XCTAssertEqual(network.dials, 3)
        let open = await client.openConnectionCount(to: endpoint)
        XCTAssertEqual(open, 0)
        // A client asking for close gets it too.
        var request = HTTPRequest(target: "/")
        request.headers.add(name: "Connection", value: "close")
        _ = try await client.send(request, to: endpoint)
        XCTAssertEqual(network.dials, 4)
        await client.shutDown()
    }

    func testConcurrentRequestsShareABoundedPool() async throws {
        let inFlight = Shared(0)
        let peak = Shared(0)
        let server = HTTPServer(sleeper: TaskSleeper()) { request in
            let now = inFlight.update { $0 += 1; return $0 }
            peak.update { $0 = max($0, now) }
            try? await Task.sleep(nanoseconds: 20_000_000)
            inFlight.update { $0 -= 1 }
            return HTTPResponse(status: .ok, body: request.body)
        }
        let network = HTTPTestNetwork(server: server)
        let client = network.client(HTTPClient.Configuration(maxConnectionsPerEndpoint: 2))
        let endpoint = self.endpoint
        let bodies = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for index in 0..<8 {
                group.addTask {
                    try await client.send(HTTPRequest(method: .post, target: "/", body: [UInt8(index)]), to: endpoint).body
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(bodies.sorted { $0[0] < $1[0] }, (0..<8).map { [UInt8($0)] })
        XCTAssertEqual(network.dials, 2)
        XCTAssertLessThanOrEqual(peak.value, 2)
        await client.shutDown()
    }

    /// The first line is handed to the caller while the server is still holding the
    /// response open: the server only finishes after the test has seen line one.
    func testStreamedLinesArriveAsTheyAreSent() async throws {
        let (gate, openGate) = AsyncStream<Void>.makeStream()
        let server = HTTPServer(sleeper: TaskSleeper()) { _ in
            let (body, writer) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
            Task {
                writer.yield(Array("{\"result\":{\"state\":\"OPEN\"}}\n".utf8))
                for await _ in gate { break }
                // The second object is split across chunks, and a blank line between
                // objects is skipped.
                writer.yield(Array("\n{\"result\":{\"state\":".utf8))
                writer.yield(Array("\"SETTLED\"}}\n".utf8))
                writer.finish()
            }
            return .streaming(HTTPStreamingResponse(headers: ["Content-Type": "application/json"], body: body))
        }
        let network = HTTPTestNetwork(server: server)
        let client = network.client()
        let endpoint = self.endpoint
        let stream = try await client.stream(HTTPRequest(target: "/v2/invoices/subscribe/abc"), to: endpoint)
        XCTAssertEqual(stream.response.status, .ok)
        let (firstSeen, signalFirst) = AsyncStream<Void>.makeStream()
        let consumer = Task {
            var collected: [String] = []
            for try await line in stream.lines {
                collected.append(RawHTTP.text(line))
                signalFirst.yield()
            }
            return collected
        }
        // Line one must arrive while the server still holds the gate shut.
        try await within(seconds: 5) {
            for await _ in firstSeen { break }
        }
        openGate.yield()
        // Later requests (the one below) find the gate open.
        openGate.finish()
        let all = try await within(seconds: 5) { try await consumer.value }
        XCTAssertEqual(all, ["{\"result\":{\"state\":\"OPEN\"}}", "{\"result\":{\"state\":\"SETTLED\"}}"])
        // The stream ended cleanly, so its connection serves the next request.
        _ = try await client.send(HTTPRequest(target: "/again"), to: endpoint)
        XCTAssertEqual(network.dials, 1)
        await client.shutDown()
    }

    func testAbandonedStreamClosesItsConnectionAndStopsTheProducer() async throws {
        let producerStopped = Shared(false)
        let server = HTTPServer(sleeper: TaskSleeper()) { request in
            guard request.target == "/endless" else { return .complete(HTTPResponse(status: .ok)) }
            let (body, writer) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
            let producer = Task {
                var count = 0
                while !Task.isCancelled {
                    writer.yield(Array("{\"n\":\(count)}\n".utf8))
                    count += 1
                    try? await Task.sleep(nanoseconds: 5_000_000)
                }
                producerStopped.update { $0 = true }
            }
            writer.onTermination = { _ in producer.cancel() }
            return .streaming(HTTPStreamingResponse(body: body))
        }
        let network = HTTPTestNetwork(server: server)
        let client = network.client()
        let endpoint = self.endpoint
        let stream = try await client.stream(HTTPRequest(target: "/endless"), to: endpoint)
        try await within(seconds: 5) {
            var seen = 0
            for try await _ in stream.lines {
                seen += 1
                if seen == 3 { break }
            }
        }
        try await within(seconds: 5) {
            while await client.openConnectionCount(to: endpoint) != 0 || !producerStopped.value {
                try await Task.sleep(nanoseconds: 5_000_000)
            }
        }
        // The next request cannot reuse the abandoned connection.
        _ = try await client.send(HTTPRequest(target: "/"), to: endpoint)
        XCTAssertEqual(network.dials, 2)
        await client.shutDown()
    }

    func testBasicAuthAndMacaroonHeadersReachTheServer() async throws {
        let seen = Shared<[String]>([])
        let server = HTTPServer(sleeper: TaskSleeper()) { request in
            seen.update {
                $0 = [request.headers.first(name: "authorization") ?? "-",
                      request.headers.first(name: "grpc-metadata-macaroon") ?? "-"]
            }
            return HTTPResponse(status: .ok)
        }
        var configuration = HTTPClient.Configuration()
        configuration.headers.setBasicAuthorization(HTTPBasicCredentials(user: "Aladdin", password: "open sesame"))
        configuration.headers.add(name: "Grpc-Metadata-macaroon", value: "0201036c6e6402")
        let network = HTTPTestNetwork(server: server)
        let client = network.client(configuration)
        _ = try await client.send(HTTPRequest(method: .post, target: "/", body: Array("{}".utf8)), to: endpoint)
        XCTAssertEqual(seen.value, ["Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==", "0201036c6e6402"])
        await client.shutDown()
    }

    func testHeadRequestHasNoBody() async throws {
        let network = HTTPTestNetwork(server: HTTPServer(sleeper: TaskSleeper()) { _ in
            HTTPResponse(status: .ok, body: Array("twelve bytes".utf8))
        })
        let client = network.client()
        let head = try await client.send(HTTPRequest(method: .head, target: "/"), to: endpoint)
        XCTAssertEqual(head.headers.first(name: "content-length"), "12")
        XCTAssertEqual(head.body, [])
        let get = try await client.send(HTTPRequest(target: "/"), to: endpoint)
        XCTAssertEqual(get.body, Array("twelve bytes".utf8))
        XCTAssertEqual(network.dials, 1)
        await client.shutDown()
    }

    func testAcceptLoopServesEveryConnection() async throws {
        let server = Self.echoServer()
        let (connections, accept) = AsyncStream<any ByteStream>.makeStream()
        let loop = Task { try await server.acceptLoop(connections) }
        let client = HTTPClient(configuration: HTTPClient.Configuration(maxConnectionsPerEndpoint: 3),
                                sleeper: TaskSleeper()) { _, _ in
            let (clientEnd, serverEnd) = MemoryByteStream.pair()
            accept.yield(serverEnd)
            return clientEnd
        }
        let endpoint = self.endpoint
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<6 {
                group.addTask {
                    let response = try await client.send(
                        HTTPRequest(method: .put, target: "/", body: [UInt8(index)]), to: endpoint)
                    XCTAssertEqual(response.body, [UInt8(index)])
                }
            }
            try await group.waitForAll()
        }
        await client.shutDown()
        accept.finish()
        try await within(seconds: 5) { try await loop.value }
    }
}
