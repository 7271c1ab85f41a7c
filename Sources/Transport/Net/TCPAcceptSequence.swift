/// The connections a `TCPListener` accepts, as an async sequence of byte streams: the
/// shape `HTTPServer.acceptLoop` takes. Ends when the listener is closed.
public struct TCPAcceptSequence: AsyncSequence, Sendable {
    public typealias Element = any ByteStream
    public typealias Failure = any Error

    public let listener: TCPListener

    public init(listener: TCPListener) {
        self.listener = listener
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(listener: listener)
    }

    public struct Iterator: AsyncIteratorProtocol {
        public typealias Element = any ByteStream
        public typealias Failure = any Error

        let listener: TCPListener

        public mutating func next() async throws -> (any ByteStream)? {
            try await listener.accept()
        }
    }
}
