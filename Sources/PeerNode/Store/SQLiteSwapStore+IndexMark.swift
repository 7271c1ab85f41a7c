/// The swap index high-water mark (`SwapIndexMark`) as the store keeps it: the file beside
/// the seed, and its last value recorded in the database (`recordedMarkKey`).
///
/// Order of writes when an index reaches the mark: the new mark is committed to the
/// database (with the counter), then written to the file, and only then is the index
/// returned. A crash between the two leaves the database ahead of the file, which the next
/// start repairs; a database behind the file was restored or recreated, and the start
/// flags a recovery scan as required (`RecoveryFlag`).
extension SQLiteSwapStore {
    /// The KV key of the mark this database last committed to (8 bytes, big-endian).
    static let recordedMarkKey = "swap_index.mark"

    /// Guards the index counter with `mark` from now on, and raises the counter to at
    /// least the mark: a stale or new database never hands out an index used before.
    /// Records `RecoveryFlag` when the database is new (`databaseIsNew`: its file did not
    /// exist though the seed did) or older than the file. One transaction, so the counter
    /// is never raised without the flag that says why.
    public func attachIndexMark(_ mark: SwapIndexMark, databaseIsNew: Bool) throws(StoreError) -> SwapIndexMarkCheck {
        let file = try mark.read()
        let check = try connection.transaction { () throws(StoreError) -> SwapIndexMarkCheck in
            let counter = UInt64(try nextSwapIndex())
            let recorded = try recordedMark()
            var reason: String?
            if databaseIsNew {
                reason = "the database was created anew although the seed already existed"
            } else if let file, (recorded ?? 0) < file {
                reason = "the database is older than the swap index mark (it was restored from a backup or replaced)"
            }
            // Every start skips to the mark: a database as new as the last step looks the same
            // as a stale one from within that step, and only skipping is safe for both.
            let raised = max(counter, file ?? 0, recorded ?? 0)
            try connection.withStatement("UPDATE swap_index_counter SET next_index = ?1 WHERE id = 1") { statement throws(StoreError) in
                try statement.bind(Int64(raised), at: 1)
                try statement.run()
            }
            try setValue(Self.encodeCounter(Int64(raised)), forKey: Self.recordedMarkKey)
            if let reason { try setValue(Array(reason.utf8), forKey: RecoveryFlag.key) }
            return SwapIndexMarkCheck(counterBefore: counter, counter: raised, fileMark: file, recoveryReason: reason)
        }
        if file != check.counter { try mark.write(check.counter) }
        indexMark = mark
        indexMarkValue = check.counter
        return check
    }

    /// Inside a transaction that hands out (or records) `index`: when it reaches the mark,
    /// commits the next mark with it and returns it for `writeIndexMark`.
    func recordMarkIfReached(_ index: UInt64) throws(StoreError) -> UInt64? {
        guard indexMark != nil, index >= indexMarkValue else { return nil }
        let next = SwapIndexMark.mark(covering: index)
        try setValue(Self.encodeCounter(Int64(next)), forKey: Self.recordedMarkKey)
        return next
    }

    /// After the commit, before the index is returned: a failure here fails the call, so no
    /// index above the file's mark ever leaves the store.
    func writeIndexMark(_ value: UInt64) throws(StoreError) {
        guard let indexMark else { return }
        try indexMark.write(value)
        indexMarkValue = value
    }

    private func recordedMark() throws(StoreError) -> UInt64? {
        guard let bytes = try value(forKey: Self.recordedMarkKey) else { return nil }
        guard let value = Self.decodeCounter(bytes), value >= 0 else {
            throw StoreError.corrupt("the recorded swap index mark is not an 8-byte count")
        }
        return UInt64(value)
    }
}
