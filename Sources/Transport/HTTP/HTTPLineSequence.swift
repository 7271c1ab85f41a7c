/// The lines of a streamed response body. An async sequence rather than a bare
/// AsyncThrowingStream so that leaving a `for try await` loop early (its iterator going
/// away) stops the reader and closes the connection at once, not only when every copy of
/// the stream is gone.
public struct HTTPLineSequence: AsyncSequence, Sendable {
    public typealias Element = [UInt8]
    public typealias Failure = any Error

    private let lines: AsyncThrowingStream<[UInt8], any Error>
    private let reader: Task<Void, Never>

    init(lines: AsyncThrowingStream<[UInt8], any Error>, reader: Task<Void, Never>) {
        self.lines = lines
        self.reader = reader
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(base: lines.makeAsyncIterator(), stopper: Stopper(reader: reader))
    }

    public struct Iterator: AsyncIteratorProtocol {
        public typealias Element = [UInt8]
        public typealias Failure = any Error

        var base: AsyncThrowingStream<[UInt8], any Error>.Iterator
        let stopper: Stopper

        public mutating func next() async throws -> [UInt8]? {
            try await base.next()
        }
    }

    /// Cancels the reader when the last copy of an iterator is released. Cancelling a
    /// reader that already finished does nothing.
    final class Stopper: Sendable {
        let reader: Task<Void, Never>

        init(reader: Task<Void, Never>) {
            self.reader = reader
        }

        deinit {
            reader.cancel()
        }
    }
}
