import XCTest
@testable import Transport

final class HTTPSerializerTests: XCTestCase {
    func testRequestWithContentLength() throws {
        let request = HTTPRequest(method: .post, target: "/", headers: ["Host": "127.0.0.1:18443",
                                  "Content-Length": "999", "Transfer-Encoding": "chunked"],
                                  body: "{}".bytes)
        let bytes = try HTTPSerializer.serialize(request)
        // Caller-supplied framing headers are replaced by the true length.
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self),
                       "POST / HTTP/1.1\r\nHost: 127.0.0.1:18443\r\nContent-Length: 2\r\n\r\n{}")
    }

    func testBodylessGetHasNoContentLength() throws {
        let bytes = try HTTPSerializer.serialize(HTTPRequest(target: "/v1/getinfo", headers: ["Host": "lnd"]))
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), "GET /v1/getinfo HTTP/1.1\r\nHost: lnd\r\n\r\n")
    }

    func testResponsesRoundTripThroughTheParser() throws {
        let response = HTTPResponse(status: .notFound, headers: ["Content-Type": "application/json"],
                                    body: "{\"error\":1}".bytes)
        let outcome = HTTPParsing.parse(.response, try HTTPSerializer.serialize(response))
        XCTAssertNil(outcome.error)
        var expected = response
        expected.headers.add(name: "Content-Length", value: "11")
        XCTAssertEqual(outcome.messages.first?.response, expected)
        XCTAssertEqual(outcome.messages.first?.response?.status.reasonPhrase, "Not Found")
    }

    func testHeadAnd204ResponsesCarryNoBody() throws {
        let response = HTTPResponse(status: .ok, body: "abc".bytes)
        let head = try HTTPSerializer.serialize(response, requestMethod: .head)
        XCTAssertEqual(String(decoding: head, as: UTF8.self), "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n")
        let noContent = try HTTPSerializer.serialize(HTTPResponse(status: .noContent, body: "x".bytes))
        XCTAssertEqual(String(decoding: noContent, as: UTF8.self), "HTTP/1.1 204 No Content\r\n\r\n")
    }

    func testChunkedFramingRoundTrips() throws {
        var bytes = try HTTPSerializer.head(HTTPRequest(method: .post, target: "/stream"), framing: .chunked)
        let pieces = ["first\n", "", String(repeating: "z", count: 300), "last"]
        for piece in pieces { bytes += HTTPSerializer.chunk(piece.bytes) }
        bytes += HTTPSerializer.lastChunk
        let outcome = HTTPParsing.parse(.request, bytes)
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.messages.first?.request?.body, pieces.joined().bytes)
        XCTAssertEqual(HTTPSerializer.chunk(Array(repeating: 1, count: 300)).prefix(5), "12c\r\n".bytes[...])
    }

    func testHeaderInjectionIsRefused() {
        let request = HTTPRequest(headers: ["Good": "1", "X-Evil": "a\r\nInjected: yes"])
        XCTAssertThrowsError(try HTTPSerializer.serialize(request)) {
            XCTAssertEqual($0 as? HTTPError, .invalidOutgoingHeader(index: 1))
        }
        XCTAssertThrowsError(try HTTPSerializer.serialize(HTTPRequest(headers: ["Bad Name": "1"]))) {
            XCTAssertEqual($0 as? HTTPError, .invalidOutgoingHeader(index: 0))
        }
        XCTAssertThrowsError(try HTTPSerializer.serialize(HTTPRequest(target: "/a b"))) {
            XCTAssertEqual($0 as? HTTPError, .invalidRequestTarget)
        }
        XCTAssertThrowsError(try HTTPSerializer.serialize(HTTPRequest(target: ""))) {
            XCTAssertEqual($0 as? HTTPError, .invalidRequestTarget)
        }
    }

    func testStatusReasonPhrases() {
        XCTAssertEqual(HTTPStatus(code: 413).reasonPhrase, "Content Too Large")
        XCTAssertEqual(HTTPStatus.requestHeaderFieldsTooLarge.code, 431)
        XCTAssertEqual(HTTPStatus(code: 299).reasonPhrase, "")
        XCTAssertEqual(HTTPStatus(code: 200, reasonPhrase: "Fine"), .ok)
    }
}
