/// Where the daemon's log lines go: one line per event (start-up steps, where it
/// listens, failures it survives, shutdown). Lines never carry the seed, keys,
/// macaroons or passwords.
public struct DaemonLog: Sendable {
    public let write: @Sendable (String) -> Void

    public init(_ write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    public static let silent = DaemonLog { _ in }

    func callAsFunction(_ line: String) { write(line) }

    /// Every line to `file` (`peernode.log`: time, level, text) and, formatted the same way,
    /// to `echo` (the daemon's stderr, when it runs in the foreground or under a
    /// supervisor that keeps its output).
    public static func file(_ file: LogFile, echo: (@Sendable (String) -> Void)? = nil) -> DaemonLog {
        DaemonLog { line in
            // Formatted once: the echo is the file's entry, to the millisecond.
            let entry = file.write(line)
            echo?(entry)
        }
    }
}

/// What a started daemon tells its owner once it serves (tests read the bound port).
public struct DaemonReady: Sendable, Equatable {
    public let pubky: String
    /// The peer listener's bound address, with the real port when 0 was configured.
    public let listenHost: String
    public let listenPort: Int
    public let controlSocket: String
    /// The status API's bound port (`status_listen`); nil when it is off.
    public var statusPort: Int? = nil
}
