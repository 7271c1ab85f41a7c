import CSQLite

/// One prepared statement. Data only ever reaches SQL through the bind calls here, never
/// through the SQL text. The owning `SQLiteConnection` caches it and finalizes it in its
/// `close`, so the statement never outlives its database handle.
final class SQLiteStatement {
    private(set) var handle: OpaquePointer?
    private let db: OpaquePointer
    /// The SQL text, for error messages (statements are constants, never data).
    let sql: String

    init(handle: OpaquePointer, db: OpaquePointer, sql: String) {
        self.handle = handle
        self.db = db
        self.sql = sql
    }

    // MARK: Binding (indices start at 1, as in SQLite)

    func bind(_ value: Int64, at index: Int32) throws(StoreError) {
        try SQLiteCall.check(sqlite3_bind_int64(handle, index, value), db, "bind")
    }

    func bind(_ value: String, at index: Int32) throws(StoreError) {
        // SQLITE_TRANSIENT: SQLite copies the bytes before the call returns, so the Swift
        // string's storage need not outlive the call.
        let code = sqlite3_bind_text(handle, index, value, -1, SQLiteStatement.transient)
        try SQLiteCall.check(code, db, "bind")
    }

    func bind(_ value: [UInt8], at index: Int32) throws(StoreError) {
        // An empty array has no base address, and a nil pointer would bind NULL; an empty
        // blob must stay a blob.
        let code = value.isEmpty
            ? sqlite3_bind_zeroblob(handle, index, 0)
            : value.withUnsafeBytes { buffer in
                sqlite3_bind_blob(handle, index, buffer.baseAddress, Int32(buffer.count), SQLiteStatement.transient)
            }
        try SQLiteCall.check(code, db, "bind")
    }

    func bindNull(at index: Int32) throws(StoreError) {
        try SQLiteCall.check(sqlite3_bind_null(handle, index), db, "bind")
    }

    // MARK: Stepping

    /// Runs one step: true when a row is available, false when the statement is done.
    func step() throws(StoreError) -> Bool {
        let code = try SQLiteCall.check(sqlite3_step(handle), db, "step",
                                        accepting: [SQLITE_ROW, SQLITE_DONE])
        return code == SQLITE_ROW
    }

    /// Steps a statement that returns no rows (INSERT, UPDATE, DELETE).
    func run() throws(StoreError) {
        while try step() {}
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE on this connection.
    var changes: Int32 { sqlite3_changes(db) }

    /// Readies the statement for its next use; bindings from this use are cleared so a
    /// missed bind is NULL rather than a stale value.
    func reset() {
        // sqlite3_reset repeats the last step's error, which was already reported.
        _ = sqlite3_reset(handle)
        _ = sqlite3_clear_bindings(handle)
    }

    // MARK: Columns (indices start at 0)

    func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    func string(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    func bytes(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let blob = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: blob, count: count))
    }

    /// Called by the connection only, from its `close`.
    func finalize() {
        // The return code repeats the last step's error; there is nothing left to report.
        _ = sqlite3_finalize(handle)
        handle = nil
    }

    /// SQLite's SQLITE_TRANSIENT is a macro Swift cannot import.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
