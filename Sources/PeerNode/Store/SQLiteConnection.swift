import CSQLite

/// Owns one `sqlite3*` handle and the statements prepared on it; `close` is the one place
/// both are released. Not Sendable: a single owner (the `SQLiteSwapStore` actor) uses it,
/// so calls never overlap. It is also opened with SQLITE_OPEN_FULLMUTEX, so a misuse
/// would serialize inside SQLite rather than corrupt the handle.
final class SQLiteConnection {
    private var db: OpaquePointer?
    private var statements: [String: SQLiteStatement] = [:]
    /// A file's checkpoints, off the commits (nil in memory).
    private(set) var checkpointer: WALCheckpointer?

    /// Opens (creating if needed) the database at `path` (`:memory:` for a private
    /// in-memory database) and applies the per-connection settings the store relies on.
    init(path: String, checkpointThresholdFrames: Int32 = WALCheckpointer.defaultThresholdFrames) throws(StoreError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = SQLiteCall.message(code, handle)
            // A failed open may still allocate a handle; it must be released here since
            // this object will not exist to do it.
            _ = sqlite3_close_v2(handle)
            throw .database(operation: "open \(path)", message: message)
        }
        db = handle
        // Extended codes tell a constraint failure from other errors in messages.
        _ = sqlite3_extended_result_codes(handle, 1)
        // Another process (or a second store in tests) may hold the write lock for a short
        // transaction; wait for it instead of failing at once.
        try SQLiteCall.check(sqlite3_busy_timeout(handle, 5_000), handle, "set busy timeout")
        try execute("PRAGMA foreign_keys = ON")
        if path != ":memory:" {
            // WAL: readers never block the writer, and a commit is one append to the log.
            let mode = try pragmaText("PRAGMA journal_mode = WAL")
            guard mode == "wal" else {
                throw .database(operation: "enable WAL", message: "journal mode is \(mode), not wal")
            }
        }
        // FULL in WAL mode syncs the log on every commit: once a write returns, it
        // survives power loss. This is what makes an intent record precede its act.
        try execute("PRAGMA synchronous = FULL")
        // On Darwin a plain fsync leaves data in the drive's cache; F_FULLFSYNC does not.
        // Elsewhere SQLite ignores these.
        try execute("PRAGMA fullfsync = ON")
        try execute("PRAGMA checkpoint_fullfsync = ON")
        if path != ":memory:" {
            let checkpointer = WALCheckpointer(path: path, thresholdFrames: checkpointThresholdFrames)
            do {
                try checkpointer.attach(to: handle)
            } catch {
                close()
                throw error
            }
            self.checkpointer = checkpointer
        }
    }

    deinit {
        close()
    }

    var isOpen: Bool { db != nil }

    /// Finalizes every cached statement, then closes the handle. Idempotent.
    func close() {
        for statement in statements.values {
            statement.finalize()
        }
        statements.removeAll()
        guard let handle = db else { return }
        db = nil
        // No commit reports to the checkpointer once it is gone; the close below
        // checkpoints what is left itself.
        _ = sqlite3_wal_hook(handle, nil, nil)
        checkpointer?.stop()
        checkpointer = nil
        // With every statement finalized, close cannot be busy; close_v2 would defer the
        // close rather than leak if something were still open.
        _ = sqlite3_close_v2(handle)
    }

    /// Runs constant SQL without data (DDL, pragmas). `StaticString` keeps values out: data
    /// goes through `prepared` and binds.
    func execute(_ sql: StaticString) throws(StoreError) {
        try executeText(sql.description)
    }

    /// Sets the schema version. The value is an integer, so formatting it into the pragma
    /// cannot inject anything; SQLite does not accept a bound parameter here.
    func setUserVersion(_ version: Int32) throws(StoreError) {
        try executeText("PRAGMA user_version = \(version)")
    }

    /// Reads `PRAGMA user_version`.
    func userVersion() throws(StoreError) -> Int64 {
        try withStatement("PRAGMA user_version") { statement throws(StoreError) in
            guard try statement.step() else {
                throw .database(operation: "read user_version", message: "no row")
            }
            return statement.int64(0)
        }
    }

    /// A pragma's single text result (e.g. `PRAGMA journal_mode`).
    func pragmaText(_ sql: StaticString) throws(StoreError) -> String {
        try withStatement(sql) { statement throws(StoreError) in
            guard try statement.step() else {
                throw .database(operation: sql.description, message: "no row")
            }
            return statement.string(0)
        }
    }

    /// Runs `body` with the cached prepared statement for `sql`, resetting it afterwards
    /// whatever happens, so the next user starts clean and no read lock is left behind.
    func withStatement<T>(_ sql: StaticString, _ body: (SQLiteStatement) throws(StoreError) -> T) throws(StoreError) -> T {
        let statement = try prepared(sql.description)
        defer { statement.reset() }
        return try body(statement)
    }

    /// Runs `body` in a write transaction. BEGIN IMMEDIATE takes the write lock up front,
    /// so a read-then-write (the next event sequence, the next swap index) cannot race a
    /// writer on another connection. Any error rolls back and is rethrown.
    func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try execute("BEGIN IMMEDIATE")
        do throws(StoreError) {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            // A failed COMMIT or statement may already have ended the transaction;
            // rollback then reports "no transaction is active", which adds nothing.
            if let handle = db, sqlite3_get_autocommit(handle) == 0 {
                _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            }
            throw error
        }
    }

    // MARK: Private

    private func handle(_ operation: String) throws(StoreError) -> OpaquePointer {
        guard let db else { throw .database(operation: operation, message: "the store is closed") }
        return db
    }

    private func executeText(_ sql: String) throws(StoreError) {
        let db = try handle(sql)
        try SQLiteCall.check(sqlite3_exec(db, sql, nil, nil, nil), db, sql)
    }

    private func prepared(_ sql: String) throws(StoreError) -> SQLiteStatement {
        if let cached = statements[sql] { return cached }
        let db = try handle("prepare")
        var statement: OpaquePointer?
        try SQLiteCall.check(sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil),
                             db, "prepare")
        guard let statement else {
            // Only empty SQL prepares to nothing; every statement here is a constant.
            throw .database(operation: "prepare", message: "empty statement")
        }
        let wrapped = SQLiteStatement(handle: statement, db: db, sql: sql)
        statements[sql] = wrapped
        return wrapped
    }
}
