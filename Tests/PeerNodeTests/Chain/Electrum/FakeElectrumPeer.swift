import Transport
import XCTest

/// The server's end of a scripted exchange: reads the client's lines as JSON, writes
/// replies as lines. Used over an in-memory stream or an accepted TCP connection.
final class FakeElectrumPeer: @unchecked Sendable {
    private let stream: any ByteStream
    private var buffer: [UInt8] = []

    init(stream: any ByteStream) { self.stream = stream }

    struct Closed: Error {}

    func readMessage() async throws -> JSONValue {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return try JSONParser.parse(line, limits: JSONParser.Limits(maxLength: max(line.count, 1)))
            }
            guard let bytes = try await stream.read() else { throw Closed() }
            buffer += bytes
        }
    }

    func send(_ message: JSONValue) async throws {
        try await stream.write(message.canonicalBytes + [0x0A])
    }
}
