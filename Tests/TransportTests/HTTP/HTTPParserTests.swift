import XCTest
@testable import Transport

final class HTTPParserTests: XCTestCase {
    private let contentLengthRequest =
        "POST /rpc HTTP/1.1\r\nHost: node\r\nContent-Type: application/json\r\nContent-Length: 14\r\n\r\n{\"id\":1,\"x\":2}"
    private let chunkedRequest =
        "POST /v2/invoices/hodl HTTP/1.1\r\nHost: hub\r\nTransfer-Encoding: chunked\r\n\r\n" +
        "5;name=value\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: ignored\r\n\r\n"

    func testContentLengthRequest() {
        let outcome = HTTPParsing.parse(.request, contentLengthRequest.bytes)
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.messages.count, 1)
        let request = outcome.messages[0].request
        XCTAssertEqual(request?.method, .post)
        XCTAssertEqual(request?.target, "/rpc")
        XCTAssertEqual(request?.version, .http1_1)
        XCTAssertEqual(request?.headers.first(name: "content-type"), "application/json")
        XCTAssertEqual(request?.body, "{\"id\":1,\"x\":2}".bytes)
        XCTAssertEqual(outcome.messages[0].keepAlive, true)
    }

    func testChunkedRequestWithExtensionsAndTrailers() {
        let outcome = HTTPParsing.parse(.request, chunkedRequest.bytes)
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.messages.count, 1)
        XCTAssertEqual(outcome.messages[0].request?.body, "hello, world".bytes)
        // Trailers are dropped, never merged into the head.
        XCTAssertFalse(outcome.messages[0].request?.headers.contains(name: "x-trailer") ?? true)
    }

    func testBodyPiecesArriveBeforeTheMessageEnds() throws {
        var parser = HTTPParser(kind: .response, limits: .client)
        parser.append("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nline1\n\r\n".bytes)
        guard case .responseHead(let head) = try parser.next() else { return XCTFail("expected head") }
        XCTAssertEqual(head.status, .ok)
        XCTAssertEqual(try parser.next(), .body("line1\n".bytes))
        XCTAssertNil(try parser.next())
        parser.append("0\r\n\r\n".bytes)
        XCTAssertEqual(try parser.next(), .end(keepAlive: true))
    }

    /// The same input split at every byte, one byte at a time, and at random points
    /// parses to the same messages.
    func testEverySplitGivesTheSameResult() {
        let inputs: [(HTTPParser.Kind, String)] = [
            (.request, contentLengthRequest),
            (.request, chunkedRequest),
            (.request, chunkedRequest + contentLengthRequest + "GET / HTTP/1.0\r\n\r\n"),
            (.response, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"),
            (.response, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\n\r\n"),
            (.response, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\nuntil close"),
            (.response, "HTTP/1.1 200 OK\nContent-Length: 2\n\nok"),
            (.request, "POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n"),
            (.response, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabc"),
        ]
        var generator = SeededGenerator(state: 42)
        for (kind, text) in inputs {
            let bytes = text.bytes
            let whole = HTTPParsing.parse(kind, bytes)
            XCTAssertEqual(HTTPParsing.parse(kind, bytes, cuts: HTTPParsing.everyByte(bytes.count)), whole, text)
            for cut in 0...bytes.count {
                XCTAssertEqual(HTTPParsing.parse(kind, bytes, cuts: [cut]), whole, "cut at \(cut): \(text)")
            }
            for _ in 0..<50 {
                let cuts = HTTPParsing.randomCuts(bytes.count, using: &generator)
                XCTAssertEqual(HTTPParsing.parse(kind, bytes, cuts: cuts), whole, "cuts \(cuts): \(text)")
            }
        }
    }

    func testPipelinedRequests() {
        let input = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n" + contentLengthRequest + chunkedRequest
            + "GET /last HTTP/1.1\r\nConnection: close\r\n\r\n"
        let outcome = HTTPParsing.parse(.request, input.bytes)
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.messages.map { $0.request?.target }, ["/a", "/rpc", "/v2/invoices/hodl", "/last"])
        XCTAssertEqual(outcome.messages.map(\.keepAlive), [true, true, true, false])
        XCTAssertEqual(outcome.messages[2].request?.body, "hello, world".bytes)
    }

    func testKeepAliveRules() {
        let cases: [(String, Bool)] = [
            ("GET / HTTP/1.1\r\n\r\n", true),
            ("GET / HTTP/1.1\r\nConnection: close\r\n\r\n", false),
            ("GET / HTTP/1.1\r\nConnection: Upgrade, CLOSE\r\n\r\n", false),
            ("GET / HTTP/1.0\r\n\r\n", false),
            ("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true),
            ("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", true),
        ]
        for (text, keepAlive) in cases {
            let outcome = HTTPParsing.parse(.request, text.bytes)
            XCTAssertNil(outcome.error, text)
            XCTAssertEqual(outcome.messages.first?.keepAlive, keepAlive, text)
        }
        let responses: [(String, Bool)] = [
            ("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", true),
            ("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", false),
            ("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", false),
            // A body delimited by the close can never be followed by another response.
            ("HTTP/1.1 200 OK\r\n\r\nbody", false),
        ]
        for (text, keepAlive) in responses {
            let outcome = HTTPParsing.parse(.response, text.bytes)
            XCTAssertNil(outcome.error, text)
            XCTAssertEqual(outcome.messages.first?.keepAlive, keepAlive, text)
        }
    }

    func testResponsesWithoutBodies() {
        let head = HTTPParsing.parse(.response, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n".bytes, method: .head)
        XCTAssertNil(head.error)
        XCTAssertEqual(head.messages.first?.response?.body, [])
        XCTAssertEqual(head.messages.first?.keepAlive, true)
        for code in [204, 304] {
            let text = "HTTP/1.1 \(code) X\r\nContent-Length: 10\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n!"
            let outcome = HTTPParsing.parse(.response, text.bytes)
            XCTAssertNil(outcome.error)
            XCTAssertEqual(outcome.messages.map { $0.response?.status.code }, [code, 200])
            XCTAssertEqual(outcome.messages.last?.response?.body, "!".bytes)
        }
    }

    func testInterimResponsesAreSkipped() {
        let text = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: x\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok"
        let outcome = HTTPParsing.parse(.response, text.bytes)
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.messages.map { $0.response?.status }, [.created])
        XCTAssertEqual(outcome.messages.first?.response?.status.reasonPhrase, "Created")
    }

    func testCloseDelimitedResponseEndsAtEOF() {
        let open = HTTPParsing.parse(.response, "HTTP/1.1 200 OK\r\n\r\npartial".bytes, eof: false)
        XCTAssertEqual(open, ParseOutcome(messages: [], error: nil))
        let closed = HTTPParsing.parse(.response, "HTTP/1.1 200 OK\r\n\r\nall of it".bytes)
        XCTAssertEqual(closed.messages.first?.response?.body, "all of it".bytes)
    }

    func testCleanEOFBetweenMessagesIsNotAnError() {
        XCTAssertEqual(HTTPParsing.parse(.request, [], cuts: []), ParseOutcome(messages: [], error: nil))
        let outcome = HTTPParsing.parse(.request, "GET / HTTP/1.1\r\n\r\n\r\n".bytes)
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.messages.count, 1)
    }

    /// Each malformed input yields its own typed error.
    func testMalformedRequests() {
        let cases: [(String, HTTPError)] = [
            ("GET /\r\n\r\n", .invalidStartLine),
            ("GET  / HTTP/1.1\r\n\r\n", .invalidStartLine),
            ("GET / HTTP/1.1 extra\r\n\r\n", .invalidStartLine),
            ("G(T / HTTP/1.1\r\n\r\n", .invalidStartLine),
            ("GET / HTTP/1\r\n\r\n", .invalidStartLine),
            ("GET /\u{7F} HTTP/1.1\r\n\r\n", .invalidStartLine),
            ("GET / HTTP/2.0\r\n\r\n", .unsupportedVersion),
            ("GET / HTTP/1.1\r\nNo colon\r\n\r\n", .invalidHeader),
            ("GET / HTTP/1.1\r\nName : value\r\n\r\n", .invalidHeader),
            ("GET / HTTP/1.1\r\n: value\r\n\r\n", .invalidHeader),
            ("GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", .invalidHeader),
            ("GET / HTTP/1.1\r\nA: b\rc\r\n\r\n", .invalidHeader),
            ("GET / HTTP/1.1\r\nA: b\u{0}c\r\n\r\n", .invalidHeader),
            ("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", .invalidContentLength),
            ("POST / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", .invalidContentLength),
            ("POST / HTTP/1.1\r\nContent-Length: \r\n\r\n", .invalidContentLength),
            ("POST / HTTP/1.1\r\nContent-Length: +5\r\n\r\n", .invalidContentLength),
            ("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", .conflictingContentLength),
            ("POST / HTTP/1.1\r\nContent-Length: 5, 6\r\n\r\n", .conflictingContentLength),
            ("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n", .contentLengthOverflow),
            ("POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", .contentLengthWithTransferEncoding),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", .unsupportedTransferEncoding),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", .unsupportedTransferEncoding),
            ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", .unsupportedTransferEncoding),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .invalidChunkSize),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", .invalidChunkSize),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n 5\r\n", .invalidChunkSize),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5 x\r\n", .invalidChunkSize),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;a\u{1}\r\n", .invalidChunkSize),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000\r\n", .chunkSizeOverflow),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n", .invalidChunkTerminator),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\rX", .invalidChunkTerminator),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nbad trailer\r\n\r\n", .invalidHeader),
            ("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nshort", .unexpectedEOF),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", .unexpectedEOF),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabcde\r\n", .unexpectedEOF),
            ("GET / HTTP/1.1\r\nHost: x", .unexpectedEOF),
            ("GET / HT", .unexpectedEOF),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(HTTPParsing.parse(.request, text.bytes).error, expected, text.debugDescription)
        }
    }

    func testMalformedResponses() {
        let cases: [(String, HTTPError)] = [
            ("HTTP/1.1 2000 OK\r\n\r\n", .invalidStartLine),
            ("HTTP/1.1 20 OK\r\n\r\n", .invalidStartLine),
            ("HTTP/1.1 099 OK\r\n\r\n", .invalidStartLine),
            ("HTTP/1.1 abc OK\r\n\r\n", .invalidStartLine),
            ("HTTP/1.1\r\n\r\n", .invalidStartLine),
            ("HTTP/1.1 200 O\u{1}K\r\n\r\n", .invalidStartLine),
            ("HTTX/1.1 200 OK\r\n\r\n", .invalidStartLine),
            ("HTTP/3.0 200 OK\r\n\r\n", .unsupportedVersion),
            ("<html>not http</html>\r\n", .invalidStartLine),
            ("HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n", .invalidContentLength),
            ("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n", .conflictingContentLength),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFF\r\n", .chunkSizeOverflow),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", .unsupportedTransferEncoding),
            ("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nab", .unexpectedEOF),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(HTTPParsing.parse(.response, text.bytes).error, expected, text.debugDescription)
        }
    }

    func testLimits() {
        let limits = HTTPParser.Limits(maxHeaderSectionBytes: 64, maxHeaderCount: 3, maxBodyBytes: 10,
                                       maxChunkLineBytes: 8)
        let cases: [(String, HTTPError)] = [
            ("GET /" + String(repeating: "a", count: 100) + " HTTP/1.1\r\n\r\n", .headerSectionTooLarge(limit: 64)),
            // No line feed ever arrives: the limit still stops the buffering.
            ("GET /" + String(repeating: "a", count: 100), .headerSectionTooLarge(limit: 64)),
            ("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", .tooManyHeaders(limit: 3)),
            ("GET / HTTP/1.1\r\nA: " + String(repeating: "v", count: 60) + "\r\n\r\n", .headerSectionTooLarge(limit: 64)),
            (String(repeating: "\r\n", count: 40), .headerSectionTooLarge(limit: 64)),
            ("POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\n", .bodyTooLarge(limit: 10)),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n5\r\n", .bodyTooLarge(limit: 10)),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1;ext=long\r\n", .chunkLineTooLong(limit: 8)),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n",
             .tooManyHeaders(limit: 3)),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(HTTPParsing.parse(.request, text.bytes, limits: limits).error, expected, text.debugDescription)
        }
        let tenBytes = HTTPParsing.parse(.request, "POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\n0123456789".bytes,
                                         limits: limits)
        XCTAssertNil(tenBytes.error)
        let untilClose = HTTPParsing.parse(.response, "HTTP/1.1 200 OK\r\n\r\n0123456789A".bytes, limits: limits)
        XCTAssertEqual(untilClose.error, .bodyTooLarge(limit: 10))
        XCTAssertEqual(HTTPParser.Limits.client.maxBodyBytes, 16 * 1024 * 1024)
        XCTAssertEqual(HTTPParser.Limits.server.maxBodyBytes, 1024 * 1024)
        XCTAssertEqual(HTTPParser.Limits.server.maxHeaderSectionBytes, 16 * 1024)
        XCTAssertEqual(HTTPParser.Limits.server.maxHeaderCount, 100)
    }

    /// What a server answers before closing a connection whose request it refused: a
    /// transfer coding it does not implement is 501 Not Implemented (RFC 9112 §6.1), too
    /// many header fields 431, a malformed chunk 400.
    func testEachRefusalHasItsResponseStatus() {
        XCTAssertEqual(HTTPError.unsupportedTransferEncoding.responseStatus, .notImplemented)
        XCTAssertEqual(HTTPStatus.notImplemented.code, 501)
        XCTAssertEqual(HTTPStatus.notImplemented.reasonPhrase, "Not Implemented")
        XCTAssertEqual(HTTPError.tooManyHeaders(limit: 100).responseStatus.code, 431)
        XCTAssertEqual(HTTPError.invalidChunkSize.responseStatus, .badRequest)
    }

    func testAFailedParserStaysFailed() {
        var parser = HTTPParser(kind: .request, limits: .server)
        parser.append("BAD\r\n".bytes)
        XCTAssertThrowsError(try parser.next()) { XCTAssertEqual($0 as? HTTPError, .invalidStartLine) }
        parser.append("GET / HTTP/1.1\r\n\r\n".bytes)
        XCTAssertThrowsError(try parser.next()) { XCTAssertEqual($0 as? HTTPError, .invalidStartLine) }
    }

    func testHeadersKeepOrderCaseAndRepeats() {
        let outcome = HTTPParsing.parse(.request, "GET / HTTP/1.1\r\nX-A: 1\r\nx-b:2\r\nX-a:  3 \t\r\n\r\n".bytes)
        let headers = outcome.messages.first?.request?.headers
        XCTAssertEqual(headers?["x-a"], ["1", "3"])
        XCTAssertEqual(headers?["X-B"], ["2"])
        XCTAssertEqual(headers?.map(\.name), ["X-A", "x-b", "X-a"])
    }

    func testATrickleOfSixteenKibibytesIsParsedInLinearTime() {
        // One byte at a time into a long header would be quadratic if every append
        // rescanned the line from its start.
        let value = String(repeating: "v", count: 16_000)
        let text = "GET / HTTP/1.1\r\nX-Big: \(value)\r\n\r\n"
        var parser = HTTPParser(kind: .request, limits: HTTPParser.Limits(maxHeaderSectionBytes: 17_000, maxBodyBytes: 0))
        var heads = 0
        for byte in text.utf8 {
            parser.append([byte])
            while let event = try? parser.next() {
                if case .requestHead = event { heads += 1 }
            }
        }
        XCTAssertEqual(heads, 1)
    }

    /// The fuzz entry survives random bytes and mutations of valid messages; libFuzzer
    /// runs it far longer, this keeps it from rotting.
    func testFuzzEntrySurvivesMutatedInput() {
        var generator = SeededGenerator(state: 7)
        let seeds = [contentLengthRequest, chunkedRequest,
                     "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"].map(\.bytes)
        for round in 0..<3000 {
            var input = seeds[round % seeds.count]
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                let index = Int.random(in: 0..<input.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: input[index] = UInt8.random(in: 0...255, using: &generator)
                case 1: input.insert(UInt8.random(in: 0...255, using: &generator), at: index)
                default: if input.count > 1 { input.remove(at: index) }
                }
            }
            HTTPParser.fuzz(input)
            HTTPParser.fuzz((0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
    }
}
