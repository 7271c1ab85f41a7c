import TestSupport
import XCTest
@testable import Transport

/// The server driven by hand-written bytes over an in-memory stream.
final class HTTPServerTests: XCTestCase {
    private func echoServer(_ configuration: HTTPServer.Configuration = HTTPServer.Configuration()) -> HTTPServer {
        HTTPServer(configuration: configuration, sleeper: TaskSleeper()) { request in
            HTTPResponse(status: .ok, headers: ["X-Target": request.target], body: request.body)
        }
    }

    /// Starts serving one connection and returns the client end.
    private func connect(_ server: HTTPServer) -> MemoryByteStream {
        let (clientEnd, serverEnd) = MemoryByteStream.pair()
        Task { await server.serve(connection: serverEnd) }
        return clientEnd
    }

    private func responses(in bytes: [UInt8], method: HTTPMethod = .get) -> ParseOutcome {
        HTTPParsing.parse(.response, bytes, method: method)
    }

    func testMalformedRequestGets400AndTheConnectionCloses() async throws {
        let stream = connect(echoServer())
        try await stream.write(Array("GET / HTTP/1.1\r\nBad Header\r\n\r\nGET /next HTTP/1.1\r\n\r\n".utf8))
        let reply = try await within(seconds: 5) { try await RawHTTP.readAll(stream) }
        let outcome = responses(in: reply)
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.messages.map { $0.response?.status }, [.badRequest])
        XCTAssertEqual(outcome.messages.first?.keepAlive, false)
        XCTAssertEqual(RawHTTP.text(outcome.messages.first?.response?.body ?? []), "malformed HTTP header field\n")
    }

    func testOversizedBodyGets413() async throws {
        let stream = connect(echoServer())
        try await stream.write(Array("POST / HTTP/1.1\r\nContent-Length: 2000000\r\n\r\n".utf8))
        let reply = try await within(seconds: 5) { try await RawHTTP.readAll(stream) }
        XCTAssertEqual(responses(in: reply).messages.map { $0.response?.status }, [.contentTooLarge])
    }

    func testOversizedHeadGets431() async throws {
        let stream = connect(echoServer())
        try await stream.write(Array("GET /\(String(repeating: "a", count: 20_000)) HTTP/1.1\r\n\r\n".utf8))
        let reply = try await within(seconds: 5) { try await RawHTTP.readAll(stream) }
        XCTAssertEqual(responses(in: reply).messages.map { $0.response?.status }, [.requestHeaderFieldsTooLarge])
    }

    func testPipelinedRequestsAreAnsweredInOrder() async throws {
        let stream = connect(echoServer())
        let requests = "GET /1 HTTP/1.1\r\n\r\n" + "POST /2 HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"
            + "POST /3 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nde\r\n0\r\n\r\n"
            + "GET /4 HTTP/1.1\r\nConnection: close\r\n\r\n"
        try await stream.write(Array(requests.utf8))
        let reply = try await within(seconds: 5) { try await RawHTTP.readAll(stream) }
        let outcome = responses(in: reply)
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.messages.compactMap { $0.response?.headers.first(name: "x-target") }, ["/1", "/2", "/3", "/4"])
        XCTAssertEqual(outcome.messages.map { $0.response?.body ?? [] }, [[], Array("abc".utf8), Array("de".utf8), []])
        XCTAssertEqual(outcome.messages.map(\.keepAlive), [true, true, true, false])
    }

    func testHTTP10ClientsGetCloseUnlessTheyAskForKeepAlive() async throws {
        let stream = connect(echoServer())
        try await stream.write(Array("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /b HTTP/1.0\r\n\r\n".utf8))
        let reply = try await within(seconds: 5) { try await RawHTTP.readAll(stream) }
        let outcome = responses(in: reply)
        XCTAssertEqual(outcome.messages.map { $0.response?.headers.first(name: "connection") }, ["keep-alive", "close"])
    }

    func testStreamingToAnHTTP10ClientIsCloseDelimited() async throws {
        let server = HTTPServer(sleeper: TaskSleeper()) { _ in
            .streaming(HTTPStreamingResponse(body: AsyncThrowingStream { continuation in
                continuation.yield(Array("one\n".utf8))
                continuation.yield(Array("two\n".utf8))
                continuation.finish()
            }))
        }
        let stream = connect(server)
        try await stream.write(Array("GET /stream HTTP/1.0\r\n\r\n".utf8))
        let reply = RawHTTP.text(try await within(seconds: 5) { try await RawHTTP.readAll(stream) })
        XCTAssertFalse(reply.lowercased().contains("transfer-encoding"))
        XCTAssertTrue(reply.hasSuffix("\r\n\r\none\ntwo\n"), reply)
    }

    func testAFailingBodyStreamCutsTheResponseShort() async throws {
        struct Broken: Error {}
        let server = HTTPServer(sleeper: TaskSleeper()) { _ in
            .streaming(HTTPStreamingResponse(body: AsyncThrowingStream { continuation in
                continuation.yield(Array("partial\n".utf8))
                continuation.finish(throwing: Broken())
            }))
        }
        let stream = connect(server)
        try await stream.write(Array("GET / HTTP/1.1\r\n\r\n".utf8))
        let reply = try await within(seconds: 5) { try await RawHTTP.readAll(stream) }
        // No last chunk: the client sees an incomplete body, not a complete short one.
        XCTAssertEqual(responses(in: reply).error, .unexpectedEOF)
    }

    func testExpectContinueGetsAnInterimResponse() async throws {
        let stream = connect(echoServer())
        try await stream.write(Array("PUT /up HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n".utf8))
        let interim = try await within(seconds: 5) { try await stream.read() }
        XCTAssertEqual(RawHTTP.text(interim ?? []), "HTTP/1.1 100 Continue\r\n\r\n")
        try await stream.write(Array("hello".utf8))
        var parser = HTTPParser(kind: .response, limits: .client)
        var body: [UInt8] = []
        while true {
            if let event = try parser.next() {
                if case .body(let piece) = event { body += piece }
                if case .end = event { break }
                continue
            }
            guard let bytes = try await within(seconds: 5, { try await stream.read() }) else { break }
            parser.append(bytes)
        }
        XCTAssertEqual(body, Array("hello".utf8))
        await stream.close()
    }

    func testIdleConnectionIsClosedQuietly() async throws {
        let stream = connect(echoServer(HTTPServer.Configuration(idleTimeoutMilliseconds: 50)))
        let started = ContinuousClock.now
        let reply = try await within(seconds: 5) { try await RawHTTP.readAll(stream) }
        XCTAssertEqual(reply, [])
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, .milliseconds(40))
    }

    func testIdleTimeoutStartsAfterEachResponse() async throws {
        let stream = connect(echoServer(HTTPServer.Configuration(idleTimeoutMilliseconds: 150)))
        for index in 0..<4 {
            // Each request comes well within the idle limit of the previous response.
            try await Task.sleep(nanoseconds: 60_000_000)
            try await stream.write(Array("GET /\(index) HTTP/1.1\r\n\r\n".utf8))
            let reply = try await within(seconds: 5) { try await stream.read() }
            XCTAssertTrue(RawHTTP.text(reply ?? []).hasPrefix("HTTP/1.1 200 OK"))
        }
        await stream.close()
    }

    func testStalledRequestGets408AndIsClosed() async throws {
        let stream = connect(echoServer(HTTPServer.Configuration(requestTimeoutMilliseconds: 50)))
        // Half a request, then nothing: a slow-loris client.
        try await stream.write(Array("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc".utf8))
        let reply = try await within(seconds: 5) { try await RawHTTP.readAll(stream) }
        XCTAssertEqual(responses(in: reply).messages.map { $0.response?.status }, [.requestTimeout])
    }

    func testHandlerResponseWithInjectedHeaderBecomes500() async throws {
        let server = HTTPServer(sleeper: TaskSleeper()) { _ in
            HTTPResponse(status: .ok, headers: ["X-Bad": "a\r\nSet-Cookie: evil"])
        }
        let stream = connect(server)
        try await stream.write(Array("GET / HTTP/1.1\r\n\r\n".utf8))
        let reply = try await within(seconds: 5) { try await RawHTTP.readAll(stream) }
        let outcome = responses(in: reply)
        XCTAssertEqual(outcome.messages.map { $0.response?.status }, [.internalServerError])
        XCTAssertFalse(RawHTTP.text(reply).contains("evil"))
    }

    func testAcceptLoopClosesConnectionsOverTheLimit() async throws {
        let server = echoServer(HTTPServer.Configuration(maxConnections: 1))
        let (connections, accept) = AsyncStream<any ByteStream>.makeStream()
        let loop = Task { try await server.acceptLoop(connections) }
        let (first, firstServer) = MemoryByteStream.pair()
        let (second, secondServer) = MemoryByteStream.pair()
        accept.yield(firstServer)
        accept.yield(secondServer)
        let refused = try await within(seconds: 5) { try await RawHTTP.readAll(second) }
        XCTAssertEqual(refused, [])
        try await first.write(Array("GET /ok HTTP/1.1\r\nConnection: close\r\n\r\n".utf8))
        let served = try await within(seconds: 5) { try await RawHTTP.readAll(first) }
        XCTAssertEqual(responses(in: served).messages.map { $0.response?.status }, [.ok])
        accept.finish()
        try await within(seconds: 5) { try await loop.value }
    }
}
