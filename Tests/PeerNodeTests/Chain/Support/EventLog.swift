import PeerNode
import Synchronization
import XCTest

/// Collects a watcher's events as they arrive, so a test can take the next few after a
/// follower round without blocking on a stream that has nothing more to say.
final class EventLog: Sendable {
    private let cursor = Mutex(0)
    private let sink: SendableSink
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<ChainEvent>) {
        let sink = SendableSink()
        self.sink = sink
        task = Task { for await event in stream { sink.append(event) } }
    }

    /// The next `count` events, waiting up to 5 s for them.
    func take(_ count: Int, file: StaticString = #filePath, line: UInt = #line) async throws -> [ChainEvent] {
        for _ in 0..<500 {
            let start = cursor.withLock { $0 }
            let available = sink.snapshot()
            if available.count >= start + count {
                cursor.withLock { $0 = start + count }
                return Array(available[start..<start + count])
            }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        let start = cursor.withLock { $0 }
        XCTFail("expected \(count) more events, got \(Array(sink.snapshot().dropFirst(start)))", file: file, line: line)
        throw CancellationError()
    }

    /// Nothing beyond what was taken (after giving stragglers a moment).
    func assertNoMore(file: StaticString = #filePath, line: UInt = #line) async throws {
        try await Task.sleep(nanoseconds: 30_000_000)
        let start = cursor.withLock { $0 }
        XCTAssertEqual(Array(sink.snapshot().dropFirst(start)), [], "unexpected events", file: file, line: line)
    }

    /// Waits for the stream to end (after unregistering).
    func waitForEnd() async { await task.value }

    private final class SendableSink: Sendable {
        private let events = Mutex<[ChainEvent]>([])
        func append(_ event: ChainEvent) { events.withLock { $0.append(event) } }
        func snapshot() -> [ChainEvent] { events.withLock { $0 } }
    }
}
