import TestSupport
import XCTest
@testable import Transport

final class HTTPClientFailureTests: XCTestCase {
    private let endpoint = HTTPTestNetwork.endpoint

    /// Each broken response is an error, the client survives, and the connection that
    /// carried it is never used again.
    func testMalformedResponsesAreErrorsAndTheirConnectionsAreDropped() async throws {
        let cases: [(String, HTTPError)] = [
            ("HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n", .invalidContentLength),
            ("<html>garbage</html>\r\n\r\n", .invalidStartLine),
            ("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", .unexpectedEOF),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nnothex\r\n", .invalidChunkSize),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc", .unexpectedEOF),
            ("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", .conflictingContentLength),
            ("HTTP/1.1 200 OK\r\nBroken header\r\n\r\n", .invalidHeader),
            ("", .connectionClosed),
        ]
        for (text, expected) in cases {
            let good = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
            let peer = ScriptedPeer { dial, stream in
                // Every connection reads one request; the first answers with the broken
                // response and closes, later ones answer properly.
                while true {
                    _ = try await RawHTTP.readHead(stream)
                    if dial == 1 {
                        try await stream.write(Array(text.utf8))
                        await stream.close()
                        return
                    }
                    try await stream.write(Array(good.utf8))
                }
            }
            let client = HTTPClient(sleeper: TaskSleeper(), connector: peer.connector)
            do {
                _ = try await client.send(HTTPRequest(method: .post, target: "/", body: [1]), to: endpoint)
                XCTFail("expected \(expected) for \(text.debugDescription)")
            } catch let error as HTTPError {
                XCTAssertEqual(error, expected, text.debugDescription)
            }
            let recovered = try await client.send(HTTPRequest(method: .post, target: "/", body: [2]), to: endpoint)
            XCTAssertEqual(recovered.body, Array("ok".utf8))
            XCTAssertEqual(peer.dials, 2, text.debugDescription)
            await client.shutDown()
        }
    }

    func testBodyOverTheClientLimitIsAnError() async throws {
        let peer = ScriptedPeer { _, stream in
            _ = try await RawHTTP.readHead(stream)
            try await stream.write(Array("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n".utf8))
        }
        var configuration = HTTPClient.Configuration()
        configuration.limits.maxBodyBytes = 50
        let client = HTTPClient(configuration: configuration, sleeper: TaskSleeper(), connector: peer.connector)
        do {
            _ = try await client.send(HTTPRequest(target: "/"), to: endpoint)
            XCTFail("expected bodyTooLarge")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .bodyTooLarge(limit: 50))
        }
        await client.shutDown()
    }

    func testMalformedStreamedBodyEndsTheLinesWithAnError() async throws {
        let peer = ScriptedPeer { _, stream in
            _ = try await RawHTTP.readHead(stream)
            try await stream.write(Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\none\n\r\nzz\r\n".utf8))
        }
        let client = HTTPClient(sleeper: TaskSleeper(), connector: peer.connector)
        let stream = try await client.stream(HTTPRequest(target: "/v2/router/send"), to: endpoint)
        var lines: [[UInt8]] = []
        do {
            for try await line in stream.lines { lines.append(line) }
            XCTFail("expected invalidChunkSize")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .invalidChunkSize)
        }
        XCTAssertEqual(lines, [Array("one".utf8)])
        await client.shutDown()
    }

    func testTimeoutEndsTheExchangeAndDropsTheConnection() async throws {
        let server = HTTPServer(sleeper: TaskSleeper()) { request in
            if request.target == "/slow" { try? await Task.sleep(nanoseconds: 10_000_000_000) }
            return HTTPResponse(status: .ok, body: Array(request.target.utf8))
        }
        let network = HTTPTestNetwork(server: server)
        let client = network.client(HTTPClient.Configuration(timeoutMilliseconds: 100))
        let started = ContinuousClock.now
        do {
            _ = try await client.send(HTTPRequest(target: "/slow"), to: endpoint)
            XCTFail("expected a timeout")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .timeout(milliseconds: 100))
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
        let fast = try await client.send(HTTPRequest(target: "/fast"), to: endpoint)
        XCTAssertEqual(fast.body, Array("/fast".utf8))
        XCTAssertEqual(network.dials, 2)
        await client.shutDown()
    }

    func testTimeoutWhileWaitingForAPoolSlot() async throws {
        let server = HTTPServer(sleeper: TaskSleeper()) { _ in
            try? await Task.sleep(nanoseconds: 400_000_000)
            return HTTPResponse(status: .ok)
        }
        let network = HTTPTestNetwork(server: server)
        let client = network.client(HTTPClient.Configuration(maxConnectionsPerEndpoint: 1, timeoutMilliseconds: 2_000))
        let endpoint = self.endpoint
        let busy = Task { try await client.send(HTTPRequest(target: "/busy"), to: endpoint) }
        try await Task.sleep(nanoseconds: 50_000_000)
        do {
            _ = try await client.send(HTTPRequest(target: "/queued"), to: endpoint, timeoutMilliseconds: 100)
            XCTFail("expected a timeout")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .timeout(milliseconds: 100))
        }
        _ = try await busy.value
        // The cancelled waiter left the queue: the freed connection is reused.
        _ = try await client.send(HTTPRequest(target: "/after"), to: endpoint)
        XCTAssertEqual(network.dials, 1)
        await client.shutDown()
    }

    func testAConnectionTheServerClosedIsRetriedOnAFreshOne() async throws {
        let server = HTTPServer(configuration: HTTPServer.Configuration(idleTimeoutMilliseconds: 30),
                                sleeper: TaskSleeper()) { request in
            HTTPResponse(status: .ok, body: request.body)
        }
        let network = HTTPTestNetwork(server: server)
        let client = network.client()
        _ = try await client.send(HTTPRequest(method: .post, target: "/", body: [1]), to: endpoint)
        try await Task.sleep(nanoseconds: 200_000_000)
        // The server has closed the idle connection; the client notices when writing
        // and sends the request again on a new connection.
        let response = try await client.send(HTTPRequest(method: .post, target: "/", body: [2]), to: endpoint)
        XCTAssertEqual(response.body, [2])
        XCTAssertEqual(network.dials, 2)
        await client.shutDown()
    }

    func testNonIdempotentRequestIsNotResentAfterTheServerReadIt() async throws {
        let peer = ScriptedPeer { dial, stream in
            _ = try await RawHTTP.readHead(stream)
            // The first connection answers once, then reads the next request and drops it.
            try await stream.write(Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8))
            if dial == 1 {
                _ = try await RawHTTP.readHead(stream)
                await stream.close()
            }
        }
        let client = HTTPClient(sleeper: TaskSleeper(), connector: peer.connector)
        _ = try await client.send(HTTPRequest(target: "/"), to: endpoint)
        do {
            _ = try await client.send(HTTPRequest(method: .post, target: "/", body: [1]), to: endpoint)
            XCTFail("a POST the server may have processed must not be sent twice")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .connectionClosed)
        }
        XCTAssertEqual(peer.dials, 1)
        await client.shutDown()
    }

    func testShutDownClientRefusesRequests() async throws {
        let network = HTTPTestNetwork(server: HTTPServer(sleeper: TaskSleeper()) { _ in HTTPResponse(status: .ok) })
        let client = network.client()
        _ = try await client.send(HTTPRequest(target: "/"), to: endpoint)
        await client.shutDown()
        do {
            _ = try await client.send(HTTPRequest(target: "/"), to: endpoint)
            XCTFail("expected clientClosed")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .clientClosed)
        }
    }

    func testHeaderInjectionNeverReachesTheWire() async throws {
        let network = HTTPTestNetwork(server: HTTPServer(sleeper: TaskSleeper()) { _ in HTTPResponse(status: .ok) })
        let client = network.client()
        do {
            _ = try await client.send(HTTPRequest(target: "/", headers: ["X": "1\r\nEvil: 1"]), to: endpoint)
            XCTFail("expected invalidOutgoingHeader")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .invalidOutgoingHeader(index: 0))
        }
        XCTAssertEqual(network.dials, 0)
        await client.shutDown()
    }
}
