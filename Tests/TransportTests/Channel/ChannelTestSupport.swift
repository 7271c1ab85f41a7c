import Synchronization
import TestSupport
import XCTest
@testable import Transport

/// Collects peer log events so tests can assert what was logged.
final class LogCapture: Sendable {
    private let events = Mutex<[PeerLogEvent]>([])

    var log: PeerLog { PeerLog { event in self.events.withLock { $0.append(event) } } }
    var all: [PeerLogEvent] { events.withLock { $0 } }

    /// Waits (polling) until an event matches; false after `milliseconds`.
    func waitFor(milliseconds: UInt64 = 3000, _ matches: (PeerLogEvent) -> Bool) async -> Bool {
        var waited: UInt64 = 0
        while waited <= milliseconds {
            if all.contains(where: matches) { return true }
            try? await Task.sleep(nanoseconds: 5_000_000)
            waited += 5
        }
        return false
    }
}

enum ChannelFixtures {
    static func identity(_ byte: UInt8) -> NodeIdentity {
        // A constant seed is valid by construction (any 32 bytes are a seed).
        NodeIdentity(seed: try! NodeSeed(bytes: [UInt8](repeating: byte, count: NodeSeed.length)))
    }

    static let alice = identity(1)
    static let bob = identity(2)
    static let carol = identity(3)
    static let mallory = identity(4)

    /// Fast limits for tests: nothing waits long.
    static func fastLimits(handshake: UInt64 = 2000, idle: UInt64 = 5000) -> ChannelLimits {
        ChannelLimits(handshakeTimeoutMilliseconds: handshake, idleTimeoutMilliseconds: idle)
    }

    /// Both ends of a handshake over an in-memory pair.
    static func channelPair(initiator: NodeIdentity = alice, responder: NodeIdentity = bob,
                            limits: ChannelLimits = fastLimits(),
                            responderLimits: ChannelLimits? = nil) async throws -> (SecureChannel, SecureChannel) {
        let (a, b) = MemoryByteStream.pair()
        async let accepted = SecureChannel.accept(over: b, identity: responder, sleeper: TaskSleeper(),
                                                  limits: responderLimits ?? limits)
        let dialled = try await SecureChannel.connect(over: a, identity: initiator, expecting: responder.pubky,
                                                      sleeper: TaskSleeper(), limits: limits)
        return (dialled, try await accepted)
    }

    static func json(_ text: String) -> [UInt8] { Array(text.utf8) }

    static func text(_ bytes: [UInt8]?) -> String? { bytes.map { String(decoding: $0, as: UTF8.self) } }
}

/// A hand-driven dialler: runs the pure handshake over a raw stream (in memory, or a TCP
/// socket), so a test holds the session and can write anything at all afterwards (flipped
/// bytes, oversized frames) as a broken or hostile peer would.
final class RawDialler<Stream: ByteStream>: @unchecked Sendable {
    // Only the test's own task touches the session.
    private var session: ChannelSession
    let stream: Stream

    private init(stream: Stream, session: consuming ChannelSession) {
        self.stream = stream
        self.session = session
    }

    /// `firstMessage`, when given, is sealed and written in the same write as handshake
    /// message 3, as a fast dialler's bytes often arrive together over TCP.
    static func dial(_ stream: Stream, identity: NodeIdentity, expecting contact: Pubky,
                     limits: ChannelLimits = ChannelLimits(), firstMessage: [UInt8]? = nil) async throws -> RawDialler {
        var handshake = try ChannelHandshake(initiator: identity, expecting: contact, limits: limits)
        var step = handshake.start()
        while true {
            if case .finished = step.outcome {
                let dialler = RawDialler(stream: stream, session: try handshake.finish())
                var bytes = step.send
                if let firstMessage { bytes += try dialler.seal(firstMessage) }
                if !bytes.isEmpty { try await stream.write(bytes) }
                return dialler
            }
            if !step.send.isEmpty { try await stream.write(step.send) }
            if case .failed(let error) = step.outcome { throw error }
            guard let bytes = try await stream.read() else { throw ChannelError.closedDuringHandshake }
            step = handshake.receive(bytes)
        }
    }

    func seal(_ message: [UInt8]) throws -> [UInt8] {
        try session.seal(message)
    }

    func open(_ bytes: [UInt8]) throws -> [[UInt8]] {
        try session.open(bytes)
    }
}
