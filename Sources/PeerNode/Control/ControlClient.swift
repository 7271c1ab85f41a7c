import Transport

/// The client side of the control API on an event loop, for code that runs one (the
/// tests): one connection, one request, progress lines to a callback, then the result.
/// The `peernode` commands use `BlockingControlClient`, the same exchange without a loop.
public struct ControlClient: Sendable {
    /// Why no answer came back at all (as opposed to the daemon answering with an error).
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// Nothing listens on the socket: the daemon is not running (or another path is used).
        case daemonNotRunning(socket: String, reason: String)
        /// The daemon closed the connection, or sent something unreadable, before answering.
        case noAnswer(socket: String, reason: String)
        /// The socket exists but this user may not connect to it (EACCES/EPERM): the
        /// daemon may well be running, under another user.
        case permissionDenied(socket: String)

        public var description: String {
            switch self {
            case .daemonNotRunning(let socket, let reason):
                return "the peernode daemon is not running (nothing answers on \(socket): \(reason)); "
                    + "start it with `peernode run --datadir <dir>`"
            case .noAnswer(let socket, let reason):
                return "the daemon on \(socket) did not answer: \(reason)"
            case .permissionDenied(let socket):
                return "this user may not connect to the daemon's control socket \(socket) (permission denied); "
                    + "run the command as the user that runs the daemon, or give this user access to the data directory"
            }
        }
    }

    public let socketPath: String
    public let loop: EventLoop

    /// What a failed connect means: no daemon, or a daemon this user may not reach.
    static func connectFailure(_ error: LibUVError, socket: String) -> Failure {
        switch error.name {
        case "EACCES", "EPERM": return .permissionDenied(socket: socket)
        case "ENOENT": return .daemonNotRunning(socket: socket, reason: "no socket file")
        default: return .daemonNotRunning(socket: socket, reason: error.description)
        }
    }

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
            throw Self.connectFailure(error, socket: socketPath)
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
            switch try Self.answer(line, socket: socketPath) {
            case .progress(let value):
                await progress(value)
            case .answer(let answer):
                await connection.close()
                return answer
            case .nothing:
                break
            }
        }
    }

    /// What one line of the daemon's reply is. Both clients read it so: this one on the
    /// loop, `BlockingControlClient` without one.
    enum Line {
        case progress(JSONValue)
        /// The result or the daemon's error: the exchange is over.
        case answer(Result<JSONValue, ControlError>)
        /// An empty line, which says nothing.
        case nothing
    }

    static func answer(_ line: [UInt8], socket: String) throws(Failure) -> Line {
        if line.isEmpty { return .nothing }
        let reply: ControlMessage.Reply
        do {
            reply = try ControlMessage.Reply.parse(line)
        } catch {
            throw .noAnswer(socket: socket, reason: error.message)
        }
        switch reply {
        case .progress(let value): return .progress(value)
        case .result(let value): return .answer(.success(value))
        case .error(let error): return .answer(.failure(error))
        }
    }
}
