import Synchronization
import TestSupport
import XCTest
@testable import Transport

enum PeerFixtures {
    typealias F = ChannelFixtures

    static func request(_ id: String, type: String = "QuoteRequest") -> [UInt8] {
        F.json(#"{"type":"\#(type)","request_id":"\#(id)"}"#)
    }

    static func requestID(of message: [UInt8]) -> String? {
        (try? MessageEnvelope.parse(message))?.requestID
    }

    /// Replies `{"type":"Echo","request_id":<id>,"from":<server's own tag>}` after
    /// `delayMilliseconds` (a random delay up to it when `jitter`).
    static func echo(tag: String = "server", delayMilliseconds: UInt64 = 0, jitter: Bool = false) -> PeerHandlers.RequestHandler {
        { request, _ in
            let delay = jitter ? UInt64.random(in: 0...delayMilliseconds) : delayMilliseconds
            if delay > 0 { try? await Task.sleep(nanoseconds: delay * 1_000_000) }
            let id = requestID(of: request) ?? "?"
            return F.json(#"{"type":"Echo","request_id":"\#(id)","from":"\#(tag)"}"#)
        }
    }

    static func server(identity: NodeIdentity = F.bob, limits: PeerLimits = PeerLimits(channel: F.fastLimits()),
                       log: PeerLog = .silent, handlers: PeerHandlers = PeerHandlers(onRequest: echo())) -> PeerServer {
        PeerServer(identity: identity, sleeper: TaskSleeper(), limits: limits, log: log, handlers: handlers)
    }

    /// Dials `server` over a fresh in-memory pair.
    static func dial(_ server: PeerServer, as identity: NodeIdentity = F.alice, expecting: Pubky? = nil,
                     limits: PeerLimits = PeerLimits(channel: F.fastLimits()), log: PeerLog = .silent,
                     handlers: PeerHandlers = PeerHandlers()) async throws -> PeerConnection {
        let (a, b) = MemoryByteStream.pair()
        await server.accept(b)
        return try await PeerConnection.dial(over: a, identity: identity, expecting: expecting ?? server.identity.pubky,
                                             sleeper: TaskSleeper(), limits: limits, log: log, handlers: handlers)
    }

    /// A raw stream into `server`, for peers that misbehave below the peer layer.
    static func rawStream(into server: PeerServer) async -> MemoryByteStream {
        let (a, b) = MemoryByteStream.pair()
        await server.accept(b)
        return a
    }
}

/// Collects pushes in arrival order.
final class PushCapture: Sendable {
    private let messages = Mutex<[String]>([])
    var handler: PeerHandlers.PushHandler {
        { message, _ in self.messages.withLock { $0.append(String(decoding: message, as: UTF8.self)) } }
    }
    var all: [String] { messages.withLock { $0 } }

    func waitForCount(_ count: Int) async -> [String] {
        for _ in 0..<600 where all.count < count {
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        return all
    }
}

/// A flag another task can raise.
final class StopFlag: Sendable {
    private let raised = Atomic<Bool>(false)
    func raise() { raised.store(true, ordering: .releasing) }
    var isRaised: Bool { raised.load(ordering: .acquiring) }
}

extension PeerFixtures {
    /// Carol keeps requesting over `carol`, pausing with `pause` between requests, while
    /// `misbehave` runs; `capture` must show `logged`, and Carol must notice nothing: served
    /// at least three times, answered after, and never closed.
    static func assertCarolKeepsBeingServed(_ carol: PeerConnection, capture: LogCapture,
                                            pause: @escaping @Sendable () async throws -> Void,
                                            logged: @escaping (PeerLogEvent) -> Bool,
                                            file: StaticString, line: UInt,
                                            _ misbehave: () async throws -> Void) async throws {
        let stop = StopFlag()
        let background = Task {
            var served = 0
            while !stop.isRaised || served < 3 {
                let id = "carol-\(served)"
                let reply = try await carol.request(request(id), id: id)
                guard requestID(of: reply) == id else { throw ChannelError.requestIDMismatch }
                served += 1
                try await pause()
            }
            return served
        }
        try await misbehave()
        let seen = await capture.waitFor(logged)
        stop.raise()
        XCTAssertTrue(seen, "expected log event missing; log: \(capture.all)", file: file, line: line)
        let served = try await background.value
        XCTAssertGreaterThanOrEqual(served, 3, file: file, line: line)
        let after = try await carol.request(request("after"), id: "after")
        XCTAssertEqual(requestID(of: after), "after", file: file, line: line)
        let carolReason = await carol.closedReason
        XCTAssertNil(carolReason, file: file, line: line)
    }
}
