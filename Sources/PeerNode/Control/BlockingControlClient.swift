import Glibc
import Transport

/// The control API over a plain blocking unix socket, for the `peernode` commands: one
/// connection, one request, each progress line to a callback, then the result, as
/// `ControlClient` does, without an event loop and without Swift's concurrency runtime.
/// A command is a process that starts, sends one request and waits; the loop's thread,
/// the hop from it to a pool thread for every line, and then the runtime's own threads
/// were most of what a `pay` spent beyond starting (docs/PERFORMANCE.md, "A command
/// without an event loop" and "A command without tasks").
///
/// While it waits, Ctrl-C is read as input: `InterruptPipe` turns SIGINT into a byte the
/// wait sees, and `onInterrupt` decides what happens (the command lets go of the swap).
public struct BlockingControlClient: Sendable {
    public let socketPath: String
    /// The read end of `InterruptPipe`, when the command handles Ctrl-C itself.
    private let interrupt: Int32?
    private let onInterrupt: @Sendable () -> Void

    public init(socketPath: String, interrupt: Int32? = nil, onInterrupt: @escaping @Sendable () -> Void = {}) {
        self.socketPath = socketPath
        self.interrupt = interrupt
        self.onInterrupt = onInterrupt
    }

    /// Sends `request` and returns the daemon's result or its error; each progress line
    /// goes to `progress` as it arrives. Blocks the calling thread until the answer.
    public func send(_ request: ControlMessage.Request,
                     progress: (JSONValue) -> Void) throws(ControlClient.Failure) -> Result<JSONValue, ControlError> {
        let socket = try connect()
        defer { close(socket) }
        do {
            try writeAll(request.line, to: socket)
        } catch {
            throw .noAnswer(socket: socketPath, reason: error.description)
        }
        var lines = ControlLineBuffer(maxLineBytes: 16 << 20)
        while true {
            let line: [UInt8]?
            do {
                line = try lines.next()
            } catch {
                throw .noAnswer(socket: socketPath, reason: "\(error)")
            }
            if let line {
                switch try ControlClient.answer(line, socket: socketPath) {
                case .progress(let value): progress(value)
                case .answer(let answer): return answer
                case .nothing: break
                }
            } else if lines.isFinished {
                throw .noAnswer(socket: socketPath, reason: "the connection closed before the reply")
            } else {
                try readMore(from: socket, into: &lines)
            }
        }
    }

    /// Waits for the socket's next bytes and adds them, or its end.
    private func readMore(from socket: Int32, into lines: inout ControlLineBuffer) throws(ControlClient.Failure) {
        try waitForInput(on: socket)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            lines.append(Array(chunk[..<count]))
        } else if count == 0 {
            lines.end()
        } else if errno != EINTR {
            throw .noAnswer(socket: socketPath, reason: Self.failure("uv_read").description)
        }
    }

    /// A failed socket call, named as the loop's client names it: errno is libuv's code
    /// negated, and `call` the libuv call that does the same work.
    private static func failure(_ call: String) -> LibUVError {
        LibUVError(call: call, code: -errno)
    }

    private func connect() throws(ControlClient.Failure) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socketPath.utf8)
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw .daemonNotRunning(socket: socketPath, reason: "the socket path is longer than a unix socket's \(MemoryLayout.size(ofValue: address.sun_path) - 1) bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else {
            throw .daemonNotRunning(socket: socketPath, reason: Self.failure("uv_pipe_init").description)
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let code = errno
            close(socket)
            throw ControlClient.connectFailure(LibUVError(call: "uv_pipe_connect", code: -code), socket: socketPath)
        }
        return socket
    }

    /// Writes every byte; MSG_NOSIGNAL, so a daemon gone away is EPIPE, not SIGPIPE.
    private func writeAll(_ bytes: [UInt8], to socket: Int32) throws(LibUVError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if written < 0 {
                if errno == EINTR { continue }
                throw Self.failure("uv_write")
            }
            offset += written
        }
    }

    /// Blocks until the socket has bytes (or its end); Ctrl-C meanwhile runs `onInterrupt`.
    private func waitForInput(on socket: Int32) throws(ControlClient.Failure) {
        var watched = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0)]
        if let interrupt { watched.append(pollfd(fd: interrupt, events: Int16(POLLIN), revents: 0)) }
        while true {
            let ready = poll(&watched, nfds_t(watched.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                throw .noAnswer(socket: socketPath, reason: Self.failure("uv_read").description)
            }
            if watched.count > 1, watched[1].revents != 0 { onInterrupt() }
            if watched[0].revents != 0 { return }
        }
    }
}

/// SIGINT as a byte on a pipe, so a command blocked in `poll` sees Ctrl-C as input. The
/// handler only writes one byte (async-signal-safe); the command acts on it outside it.
public enum InterruptPipe {
    nonisolated(unsafe) private static var writeEnd: Int32 = -1

    /// Installs the handler and returns the pipe's read end; nil when no pipe could be
    /// made (Ctrl-C then ends the command as it would any program).
    public static func install() -> Int32? {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
        writeEnd = ends[1]
        signal(SIGINT) { _ in
            var byte: UInt8 = 1
            _ = write(InterruptPipe.writeEnd, &byte, 1)
        }
        return ends[0]
    }
}
