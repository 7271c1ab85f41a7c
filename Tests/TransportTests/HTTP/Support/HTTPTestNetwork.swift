import Synchronization
import TestSupport
import XCTest
@testable import Transport

/// Dials an `HTTPServer` over in-memory stream pairs and counts the dials, so tests can
/// see exactly when the client opened a new connection.
final class HTTPTestNetwork: Sendable {
    let server: HTTPServer
    private let dialCount = Atomic<Int>(0)
    static let endpoint = HTTPEndpoint(host: "127.0.0.1", port: 18443)

    init(server: HTTPServer) {
        self.server = server
    }

    var dials: Int { dialCount.load(ordering: .relaxed) }

    var connector: HTTPClient.Connector {
        { [self] _, _ in
            dialCount.add(1, ordering: .relaxed)
            let (clientEnd, serverEnd) = MemoryByteStream.pair()
            Task { await self.server.serve(connection: serverEnd) }
            return clientEnd
        }
    }

    func client(_ configuration: HTTPClient.Configuration = HTTPClient.Configuration()) -> HTTPClient {
        HTTPClient(configuration: configuration, sleeper: TaskSleeper(), connector: connector)
    }
}

/// A connector to a hand-written peer: for each dial, `script` runs against the server
/// end, so tests can send responses no correct server would.
final class ScriptedPeer: Sendable {
    private let dialCount = Atomic<Int>(0)
    private let script: @Sendable (_ dial: Int, _ stream: MemoryByteStream) async throws -> Void

    init(script: @escaping @Sendable (_ dial: Int, _ stream: MemoryByteStream) async throws -> Void) {
        self.script = script
    }

    var dials: Int { dialCount.load(ordering: .relaxed) }

    var connector: HTTPClient.Connector {
        { [self] _, _ in
            let dial = dialCount.add(1, ordering: .relaxed).newValue
            let (clientEnd, serverEnd) = MemoryByteStream.pair()
            Task { try? await self.script(dial, serverEnd) }
            return clientEnd
        }
    }
}

enum RawHTTP {
    /// Reads until the peer closes.
    static func readAll(_ stream: any ByteStream) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        while let piece = try await stream.read() { bytes += piece }
        return bytes
    }

    /// Reads until an empty line has arrived: a request head, plus whatever part of a
    /// small body came in the same write (the scripted peers ignore bodies).
    static func readHead(_ stream: any ByteStream) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        let end = Array("\r\n\r\n".utf8)
        while !bytes.indices.contains(where: { bytes[$0...].starts(with: end) }) {
            guard let piece = try await stream.read() else { break }
            bytes += piece
        }
        return bytes
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}

/// A value shared between a test and the closures it hands to the server.
final class Shared<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) {
        storage = Mutex(value)
    }

    var value: Value { storage.withLock { $0 } }

    @discardableResult
    func update<Result: Sendable>(_ body: @Sendable (inout Value) -> Result) -> Result {
        storage.withLock { body(&$0) }
    }
}
