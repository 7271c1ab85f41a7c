import Foundation
import Transport

/// The Electrum protocol as a wallet speaks it: newline-delimited JSON-RPC 2.0 over TCP.
/// One call at a time; notifications (no `id`) that arrive meanwhile are kept apart.
final class ElectrumTestClient {
    private let stream: any ByteStream
    private var buffer: [UInt8] = []
    private var nextID = 0
    private(set) var notifications: [[String: Any]] = []

    init(stream: any ByteStream) { self.stream = stream }

    struct ServerError: Error, CustomStringConvertible {
        let method: String
        /// The reply's `error` member, as the server wrote it.
        let error: String
        var description: String { "\(method): server error \(error)" }
    }

    struct Closed: Error {}

    /// Sends one request and returns its `result`; an `error` reply throws `ServerError`.
    func call(_ method: String, _ params: [Any] = []) async throws -> Any {
        nextID += 1
        let id = nextID
        let request: [String: Any] = ["jsonrpc": "2.0", "id": id, "method": method, "params": params]
        try await stream.write(Array(try JSONSerialization.data(withJSONObject: request)) + [0x0A])
        while true {
            let line = try await readLine()
            guard let reply = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { continue }
            guard let replyID = reply["id"] as? Int else {
                notifications.append(reply)
                continue
            }
            guard replyID == id else { continue }
            if let error = reply["error"], !(error is NSNull) { throw ServerError(method: method, error: "\(error)") }
            return reply["result"] ?? NSNull()
        }
    }

    func close() async { await stream.close() }

    private func readLine() async throws -> [UInt8] {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return line
            }
            guard let bytes = try await stream.read() else { throw Closed() }
            buffer += bytes
        }
    }
}
