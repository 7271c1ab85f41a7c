import Transport

extension SQLiteSwapStore: SwapStore {
    public func reserveSwapIndex() throws(StoreError) -> UInt32 {
        let (index, newMark) = try connection.transaction { () throws(StoreError) -> (UInt32, UInt64?) in
            let next = try nextSwapIndex()
            guard next <= Int64(UInt32.max) else {
                throw StoreError.database(operation: "reserve swap index", message: "every swap index has been used")
            }
            try connection.withStatement("UPDATE swap_index_counter SET next_index = ?1 WHERE id = 1") { statement throws(StoreError) in
                try statement.bind(next + 1, at: 1)
                try statement.run()
            }
            return (UInt32(next), try recordMarkIfReached(UInt64(next)))
        }
        // The mark file is on disk before the index leaves the store (audit H-5).
        if let newMark { try writeIndexMark(newMark) }
        return index
    }

    public func create(_ record: SwapRecord, firstEvent kind: String, data: JSONValue, at: Int64) throws(StoreError) -> SwapEvent {
        try create(record, firstEvent: kind, data: data, at: at, writing: [:])
    }

    // `async` though it never suspends, as `append(_:to:)`: the protocol's default must
    // not win in async callers that hold this type.
    public func create(_ record: SwapRecord, firstEvent kind: String, data: JSONValue, at: Int64,
                       values: [String: [UInt8]]) async throws(StoreError) -> SwapEvent {
        try create(record, firstEvent: kind, data: data, at: at, writing: values)
    }

    private func create(_ record: SwapRecord, firstEvent kind: String, data: JSONValue, at: Int64,
                        writing values: [String: [UInt8]]) throws(StoreError) -> SwapEvent {
        let contract = try StoredJSON.encode(record.contract, "swap contract")
        let eventData = try StoredJSON.encode(data, "event data")
        let (event, newMark) = try connection.transaction { () throws(StoreError) -> (SwapEvent, UInt64?) in
            if try swapExists(record.id) {
                throw StoreError.duplicateSwap(record.id)
            }
            try connection.withStatement("""
                INSERT INTO swaps (id, role, swap_index, peer, created_at, contract, key_scheme)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                """) { statement throws(StoreError) in
                try statement.bind(record.id, at: 1)
                try statement.bind(record.role.rawValue, at: 2)
                try statement.bind(Int64(record.swapIndex), at: 3)
                try statement.bind(record.peer, at: 4)
                try statement.bind(record.createdAt, at: 5)
                try statement.bind(contract, at: 6)
                try statement.bind(Int64(record.keyScheme.rawValue), at: 7)
                try statement.run()
            }
            // An index not handed out by reserveSwapIndex (a swap rebuilt by recovery) must
            // still never be handed out again.
            try connection.withStatement("""
                UPDATE swap_index_counter SET next_index = max(next_index, ?1 + 1) WHERE id = 1
                """) { statement throws(StoreError) in
                try statement.bind(Int64(record.swapIndex), at: 1)
                try statement.run()
            }
            let event = SwapEvent(sequence: 1, kind: kind, data: data, isFinal: false, at: at)
            try insert(event, encodedData: eventData, swapID: record.id)
            for (key, value) in values { try setValue(value, forKey: key) }
            // The mark covers it too, so a later database loss cannot hand it out either.
            return (event, try recordMarkIfReached(UInt64(record.swapIndex)))
        }
        if let newMark { try writeIndexMark(newMark) }
        return event
    }

    public func append(_ kind: String, data: JSONValue, isFinal: Bool, to swapID: String, at: Int64) throws(StoreError) -> SwapEvent {
        let eventData = try StoredJSON.encode(data, "event data")
        return try connection.transaction { () throws(StoreError) -> SwapEvent in
            guard try swapExists(swapID) else { throw StoreError.unknownSwap(swapID) }
            // The sequence is read and written under the same write lock (BEGIN IMMEDIATE),
            // so two appends can never get the same number.
            let last = try lastSequenceAndFinality(swapID)
            if last?.isFinal == true { throw StoreError.swapFinished(swapID) }
            let event = SwapEvent(sequence: (last?.sequence ?? 0) + 1, kind: kind, data: data, isFinal: isFinal, at: at)
            try insert(event, encodedData: eventData, swapID: swapID)
            return event
        }
    }

    // `async` though it never suspends: a synchronous one would lose to the protocol's
    // one-by-one default in async callers that hold this type.
    public func append(_ events: [NewSwapEvent], to swapID: String) async throws(StoreError) -> [SwapEvent] {
        let encoded = try events.map { event throws(StoreError) in try StoredJSON.encode(event.data, "event data") }
        return try connection.transaction { () throws(StoreError) -> [SwapEvent] in
            guard try swapExists(swapID) else { throw StoreError.unknownSwap(swapID) }
            let last = try lastSequenceAndFinality(swapID)
            var sequence = last?.sequence ?? 0
            var ended = last?.isFinal == true
            var written: [SwapEvent] = []
            for (new, data) in zip(events, encoded) {
                if ended { throw StoreError.swapFinished(swapID) }
                sequence += 1
                let event = SwapEvent(sequence: sequence, kind: new.kind, data: new.data, isFinal: new.isFinal, at: new.at)
                try insert(event, encodedData: data, swapID: swapID)
                written.append(event)
                ended = new.isFinal
            }
            return written
        }
    }

    public func reopen(_ kind: String, data: JSONValue, reason: String, to swapID: String,
                       at: Int64) throws(StoreError) -> SwapEvent {
        guard !reason.allSatisfy(\.isWhitespace) else { throw StoreError.notReopenable(swapID, why: "no reason was given") }
        return try connection.transaction { () throws(StoreError) -> SwapEvent in
            guard try swapExists(swapID) else { throw StoreError.unknownSwap(swapID) }
            guard let last = try lastEvent(of: swapID), last.isFinal else {
                throw StoreError.notReopenable(swapID, why: "it has not ended")
            }
            var members = data.objectValue ?? [:]
            members["reopened"] = .object(["reason": .string(reason), "after": .string(last.kind)])
            let recorded = JSONValue.object(members)
            let event = SwapEvent(sequence: last.sequence + 1, kind: kind, data: recorded, isFinal: false, at: at)
            try insert(event, encodedData: try StoredJSON.encode(recorded, "event data"), swapID: swapID)
            return event
        }
    }

    public func swap(_ id: String) throws(StoreError) -> SwapRecord? {
        try connection.withStatement("""
            SELECT id, role, swap_index, peer, created_at, contract, key_scheme FROM swaps WHERE id = ?1
            """) { statement throws(StoreError) -> SwapRecord? in
            try statement.bind(id, at: 1)
            guard try statement.step() else { return nil }
            return try SwapRows.record(statement)
        }
    }

    public func events(of swapID: String) throws(StoreError) -> [SwapEvent] {
        try connection.withStatement("""
            SELECT sequence, kind, data, is_final, at FROM swap_events
            WHERE swap_id = ?1 ORDER BY sequence
            """) { statement throws(StoreError) -> [SwapEvent] in
            try statement.bind(swapID, at: 1)
            var events: [SwapEvent] = []
            while try statement.step() {
                events.append(try SwapRows.event(statement, swapID: swapID))
            }
            return events
        }
    }

    public func lastEvent(of swapID: String) throws(StoreError) -> SwapEvent? {
        try connection.withStatement("""
            SELECT sequence, kind, data, is_final, at FROM swap_events
            WHERE swap_id = ?1 ORDER BY sequence DESC LIMIT 1
            """) { statement throws(StoreError) -> SwapEvent? in
            try statement.bind(swapID, at: 1)
            guard try statement.step() else { return nil }
            return try SwapRows.event(statement, swapID: swapID)
        }
    }

    public func unfinishedSwaps(role: SwapRole?) throws(StoreError) -> [SwapRecord] {
        // The last event decides: a reopened swap (`reopen`) has a final event behind it.
        // Oldest first, insertion order breaking ties.
        try connection.withStatement("""
            SELECT id, role, swap_index, peer, created_at, contract, key_scheme FROM swaps AS s
            WHERE (?1 IS NULL OR s.role = ?1)
              AND (SELECT e.is_final FROM swap_events AS e WHERE e.swap_id = s.id
                   ORDER BY e.sequence DESC LIMIT 1) = 0
            ORDER BY s.created_at, s.rowid
            """) { statement throws(StoreError) -> [SwapRecord] in
            if let role {
                try statement.bind(role.rawValue, at: 1)
            } else {
                try statement.bindNull(at: 1)
            }
            var records: [SwapRecord] = []
            while try statement.step() {
                records.append(try SwapRows.record(statement))
            }
            return records
        }
    }

    public func allSwaps(limit: Int) throws(StoreError) -> [SwapRecord] {
        guard limit > 0 else { return [] }
        return try connection.withStatement("""
            SELECT id, role, swap_index, peer, created_at, contract, key_scheme FROM swaps
            ORDER BY created_at DESC, rowid DESC LIMIT ?1
            """) { statement throws(StoreError) -> [SwapRecord] in
            try statement.bind(Int64(clamping: limit), at: 1)
            var records: [SwapRecord] = []
            while try statement.step() {
                records.append(try SwapRows.record(statement))
            }
            return records
        }
    }

    public func swaps(withPeer peer: String, limit: Int) throws(StoreError) -> [SwapRecord] {
        guard limit > 0 else { return [] }
        return try connection.withStatement("""
            SELECT id, role, swap_index, peer, created_at, contract, key_scheme FROM swaps WHERE peer = ?1
            ORDER BY created_at DESC, rowid DESC LIMIT ?2
            """) { statement throws(StoreError) -> [SwapRecord] in
            try statement.bind(peer, at: 1)
            try statement.bind(Int64(clamping: limit), at: 2)
            var records: [SwapRecord] = []
            while try statement.step() {
                records.append(try SwapRows.record(statement))
            }
            return records
        }
    }

    // MARK: Private (each runs inside the caller's transaction)

    func nextSwapIndex() throws(StoreError) -> Int64 {
        try connection.withStatement("SELECT next_index FROM swap_index_counter WHERE id = 1") { statement throws(StoreError) -> Int64 in
            guard try statement.step() else { throw StoreError.corrupt("the swap index counter is missing") }
            return statement.int64(0)
        }
    }

    private func swapExists(_ id: String) throws(StoreError) -> Bool {
        try connection.withStatement("SELECT 1 FROM swaps WHERE id = ?1") { statement throws(StoreError) -> Bool in
            try statement.bind(id, at: 1)
            return try statement.step()
        }
    }

    private func lastSequenceAndFinality(_ swapID: String) throws(StoreError) -> (sequence: Int64, isFinal: Bool)? {
        try connection.withStatement("""
            SELECT sequence, is_final FROM swap_events WHERE swap_id = ?1 ORDER BY sequence DESC LIMIT 1
            """) { statement throws(StoreError) -> (sequence: Int64, isFinal: Bool)? in
            try statement.bind(swapID, at: 1)
            guard try statement.step() else { return nil }
            return (statement.int64(0), statement.int64(1) != 0)
        }
    }

    private func insert(_ event: SwapEvent, encodedData: String, swapID: String) throws(StoreError) {
        try connection.withStatement("""
            INSERT INTO swap_events (swap_id, sequence, kind, data, is_final, at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            """) { statement throws(StoreError) in
            try statement.bind(swapID, at: 1)
            try statement.bind(event.sequence, at: 2)
            try statement.bind(event.kind, at: 3)
            try statement.bind(encodedData, at: 4)
            try statement.bind(event.isFinal ? 1 : 0, at: 5)
            try statement.bind(event.at, at: 6)
            try statement.run()
        }
    }
}
