import CSQLite

/// The one place SQLite result codes become errors. Every sqlite3_* call whose code
/// matters goes through `check`, so a failure always carries the operation it happened
/// in and SQLite's own message (which names tables and constraints, never bound values,
/// so no swap secret can leak into a log line).
enum SQLiteCall {
    /// Returns `code` when it is SQLITE_OK or one of `accepted` (e.g. SQLITE_ROW,
    /// SQLITE_DONE for a step); throws `.database` otherwise.
    @discardableResult
    static func check(_ code: Int32, _ db: OpaquePointer?, _ operation: String,
                      accepting accepted: [Int32] = []) throws(StoreError) -> Int32 {
        if code == SQLITE_OK || accepted.contains(code) { return code }
        throw StoreError.database(operation: operation, message: message(code, db))
    }

    /// The connection's message for the last failure, or the generic text for `code`
    /// when there is no connection (a failed open leaves none usable).
    static func message(_ code: Int32, _ db: OpaquePointer?) -> String {
        if let db, let text = sqlite3_errmsg(db) {
            return String(cString: text)
        }
        return String(cString: sqlite3_errstr(code))
    }
}
