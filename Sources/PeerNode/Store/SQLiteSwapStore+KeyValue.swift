extension SQLiteSwapStore: KeyValueStore {
    public func value(forKey key: String) throws(StoreError) -> [UInt8]? {
        try connection.withStatement("SELECT value FROM kv WHERE key = ?1") { statement throws(StoreError) -> [UInt8]? in
            try statement.bind(key, at: 1)
            return try statement.step() ? statement.bytes(0) : nil
        }
    }

    public func setValue(_ value: [UInt8], forKey key: String) throws(StoreError) {
        try connection.withStatement("""
            INSERT INTO kv (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value
            """) { statement throws(StoreError) in
            try statement.bind(key, at: 1)
            try statement.bind(value, at: 2)
            try statement.run()
        }
    }

    @discardableResult
    public func removeValue(forKey key: String) throws(StoreError) -> Bool {
        try connection.withStatement("DELETE FROM kv WHERE key = ?1") { statement throws(StoreError) -> Bool in
            try statement.bind(key, at: 1)
            try statement.run()
            return statement.changes > 0
        }
    }

    public func takeNext(forKey key: String, initial: Int64) throws(StoreError) -> Int64 {
        try connection.transaction { () throws(StoreError) -> Int64 in
            let current: Int64
            if let stored = try value(forKey: key) {
                guard let decoded = Self.decodeCounter(stored) else {
                    throw StoreError.corrupt("the counter \(key) is not an 8-byte integer")
                }
                current = decoded
            } else {
                current = initial
            }
            guard current < Int64.max else {
                throw StoreError.database(operation: "take next \(key)", message: "the counter is exhausted")
            }
            try setValue(Self.encodeCounter(current + 1), forKey: key)
            return current
        }
    }

    /// Counters are 8 bytes big-endian, so `value(forKey:)` shows them unambiguously.
    static func encodeCounter(_ value: Int64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: value) >> (56 - 8 * UInt64($0))) }
    }

    static func decodeCounter(_ bytes: [UInt8]) -> Int64? {
        guard bytes.count == 8 else { return nil }
        return Int64(bitPattern: bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }
}
