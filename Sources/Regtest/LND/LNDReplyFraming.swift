import Transport

/// How LND's REST gateway frames a plain (non-streamed) reply: Go's net/http buffers the
/// first 2048 bytes a handler writes; a reply that fits is sent with Content-Length, a
/// larger one (the gateway writes the marshalled message in one go) with
/// `Transfer-Encoding: chunked`. The hub does the same, so a client that reads only
/// Content-Length fails against the hub as it would against LND.
enum LNDReplyFraming {
    /// net/http's `bufferBeforeChunkingSize`.
    static let bufferBeforeChunking = 2048

    static func reply(status: HTTPStatus, body: [UInt8]) -> HTTPServerResponse {
        let headers: HTTPHeaders = ["Content-Type": "application/json"]
        guard body.count > bufferBeforeChunking else {
            return .complete(HTTPResponse(status: status, headers: headers, body: body))
        }
        let (chunks, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        continuation.yield(body)
        continuation.finish()
        return .streaming(HTTPStreamingResponse(status: status, headers: headers, body: chunks))
    }
}
