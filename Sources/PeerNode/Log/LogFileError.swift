/// The log file cannot be opened: the path and the system's reason ("cannot open
/// /data/peernode.log: No such file or directory").
public struct LogFileError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
}
