/// What `SQLiteSwapStore.attachIndexMark` found and did at start-up, for the daemon's log.
public struct SwapIndexMarkCheck: Sendable, Equatable {
    /// The database's next index before the start.
    public let counterBefore: UInt64
    /// The next index from now on (also the mark the file now holds).
    public let counter: UInt64
    /// The file's mark before the start; nil when there was no file.
    public let fileMark: UInt64?
    /// Why new client swaps wait for a recovery scan, when they do.
    public let recoveryReason: String?
}
