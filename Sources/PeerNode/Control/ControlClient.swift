import Transport

/// The client side of the control API, used by the `peernode` commands and by tests:
/// one connection, one request, progress lines to a callback, then the result.
public struct ControlClient: Sendable {
    /// Why no answer came back at all (as opposed to the daemon answering with an error).
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// Nothing listens on the socket: the daemon is not running (or another path is used).
        case daemonNotRunning(socket: String, reason: String)
        /// The daemon closed the connection, or sent something unreadable, before answering.
        case noAnswer(socket: String, reason: String)

        public var description: String {
            switch self {
            case .daemonNotRunning(let socket, let reason):
                return "the peernode daemon is not running (nothing answers on \(socket): \(reason)); "
                    + "start it with `peernode run --datadir <dir>`"
            case .noAnswer(let socket, let reason):
                return "the daemon on \(socket) did not answer: \(reason)"
            }
        }
    }

    public let socketPath: String
    public let loop: EventLoop

    public init(socketPath: String, loop: EventLoop) {
        self.socketPath = socketPath
        self.loop = loop
    }

    /// Sends `request` and returns the daemon's result or its error; each progress line
    /// goes to `progress` as it arrives.
    public func send(_ request: ControlMessage.Request,
                     progress: @Sendable (JSONValue) async -> Void = { _ in }) async throws(Failure) -> Result<JSONValue, ControlError> {
        let connection: PipeConnection
        do {
            connection = try await PipeConnection.connect(path: socketPath, loop: loop)
        } catch let error as LibUVError {
            throw .daemonNotRunning(socket: socketPath, reason: String(describing: error.name == "ENOENT" ? "no socket file" : error.description))
        } catch {
            throw .daemonNotRunning(socket: socketPath, reason: "\(error)")
        }
        defer { Task { await connection.close() } }
        do {
            try await connection.write(request.line)
        } catch {
            throw .noAnswer(socket: socketPath, reason: "\(error)")
        }
        var reader = ControlLineReader(stream: connection, maxLineBytes: 16 << 20)
        while true {
            let line: [UInt8]?
            do {
                line = try await reader.next()
            } catch {
                throw .noAnswer(socket: socketPath, reason: "\(error)")
            }
            guard let line else { throw .noAnswer(socket: socketPath, reason: "the connection closed before the reply") }
            if line.isEmpty { continue }
            let reply: ControlMessage.Reply
            do {
                reply = try ControlMessage.Reply.parse(line)
            } catch {
                throw .noAnswer(socket: socketPath, reason: error.message)
            }
            switch reply {
            case .progress(let value): await progress(value)
            case .result(let value): await connection.close(); return .success(value)
            case .error(let error): await connection.close(); return .failure(error)
            }
        }
    }
}
