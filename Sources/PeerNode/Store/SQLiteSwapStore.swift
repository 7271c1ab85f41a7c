import Transport

/// The node's SQLite store: swaps (contract plus append-only event log), contacts, the
/// offer cache and small wallet values, in one database file.
///
/// Threading: an actor, so its methods run one at a time on Swift's cooperative thread
/// pool, never on the libuv loop thread. A caller on the loop awaits the result and the
/// loop keeps turning while SQLite works. Every method is one short transaction with no
/// suspension point inside, so the actor never interleaves two transactions; the cost
/// a pool thread pays is one WAL append and fsync per write. Copying the WAL back into the
/// file is `WALCheckpointer`'s, on a thread of its own.
///
/// Durability: WAL with `synchronous = FULL`, so when a write method returns its commit is
/// on stable storage. Engines record an intent and only then perform the act.
public actor SQLiteSwapStore {
    let connection: SQLiteConnection
    /// The file-backed index high-water mark, once `attachIndexMark` ran (the daemon's
    /// store); nil for stores that only tests and tools open.
    var indexMark: SwapIndexMark?
    /// The mark's value as last written: reaching it means writing a higher one first.
    var indexMarkValue: UInt64 = 0

    private init(path: String, checkpointThresholdFrames: Int32 = WALCheckpointer.defaultThresholdFrames) throws(StoreError) {
        let connection = try SQLiteConnection(path: path, checkpointThresholdFrames: checkpointThresholdFrames)
        try Migrations.apply(to: connection)
        self.connection = connection
    }

    /// Opens the store at `path`, creating the file (mode 0600) and migrating the schema
    /// as needed. A database written by a newer peernode is refused with `.corrupt`.
    public static func open(path: String) throws(StoreError) -> SQLiteSwapStore {
        try open(path: path, checkpointThresholdFrames: WALCheckpointer.defaultThresholdFrames)
    }

    /// `open`, with the log length at which the checkpoint thread copies it back (tests).
    static func open(path: String, checkpointThresholdFrames: Int32) throws(StoreError) -> SQLiteSwapStore {
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else {
            throw .database(operation: "open", message: "the store needs a file path, got \"\(path)\"")
        }
        try DatabaseFile.prepare(path: path)
        return try SQLiteSwapStore(path: path, checkpointThresholdFrames: checkpointThresholdFrames)
    }

    /// Checkpoints the background thread ran to the end (tests).
    var checkpointsCompleted: Int { connection.checkpointer?.completed.load(ordering: .relaxed) ?? 0 }

    /// A private database that lives as long as the store: for tests and dry runs.
    public static func openInMemory() throws(StoreError) -> SQLiteSwapStore {
        try SQLiteSwapStore(path: ":memory:")
    }

    /// Closes the database (graceful shutdown). Later calls fail with `.database`; every
    /// write that returned before is already durable, so closing adds no safety, it only
    /// checkpoints the WAL and releases the file.
    public func close() {
        connection.close()
    }
}
