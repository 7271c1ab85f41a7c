import Transport

/// Decides whether the control socket's path may be used. A socket file with a daemon
/// answering on it means another daemon runs: refused. A socket file nobody answers on
/// is what a crashed daemon leaves behind: removed. Anything else at the path (a regular
/// file, a directory) is never removed: it was not made by peernode.
enum ControlSocket {
    static func claim(path: String, loop: EventLoop) async throws(DaemonError) {
        switch PosixFile.kind(of: path) {
        case nil:
            return
        case .socket:
            if await isAnswering(path: path, loop: loop) { throw .alreadyRunning(socket: path) }
            do {
                try PosixFile.remove(path)
            } catch where error.isMissing {
                return
            } catch {
                throw .socketPathTaken(path: path, reason: "a stale socket is there and cannot be removed: \(error.reason)")
            }
        case .file?, .directory?, .other?:
            throw .socketPathTaken(path: path, reason: "something that is not a socket is there; remove it or set control_socket to another path")
        }
    }

    /// True when a connection to `path` succeeds: something listens there.
    static func isAnswering(path: String, loop: EventLoop) async -> Bool {
        guard let connection = try? await PipeConnection.connect(path: path, loop: loop) else { return false }
        await connection.close()
        return true
    }
}
