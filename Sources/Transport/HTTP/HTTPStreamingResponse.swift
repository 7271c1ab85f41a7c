/// A response whose body is a stream of pieces. Each piece is written as one chunk as soon
/// as it is yielded; finishing the stream ends the body. If the stream throws, the
/// connection is closed without the final chunk, so the client sees an incomplete body
/// rather than a truncated one that looks whole.
public struct HTTPStreamingResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: AsyncThrowingStream<[UInt8], any Error>

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(),
                body: AsyncThrowingStream<[UInt8], any Error>) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
