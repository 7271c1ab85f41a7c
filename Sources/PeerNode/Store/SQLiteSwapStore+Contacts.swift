import Transport

extension SQLiteSwapStore: ContactStore {
    /// Checked and written in one transaction, so two `contacts add` at once cannot both
    /// pass the check.
    public func saveContact(_ contact: SavedContact, replace: Bool) throws(StoreError) -> ContactConflict? {
        try connection.transaction { () throws(StoreError) -> ContactConflict? in
            let samePubky = try self.contact(pubky: contact.pubky)
            let sameName = try self.contact(named: contact.name)
            if let holder = sameName, holder.pubky != contact.pubky {
                guard replace else { return .nameHeldBy(existing: holder) }
                try deleteContact(holder.pubky)
            }
            if let saved = samePubky, saved.name != contact.name, !replace {
                return .pubkySavedAs(existing: saved, wanted: contact.name)
            }
            try connection.withStatement("""
                INSERT INTO contacts (pubky, name, host, port, added_at, node_key, resolved) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                ON CONFLICT (pubky) DO UPDATE SET name = excluded.name, host = excluded.host, port = excluded.port,
                    node_key = excluded.node_key, resolved = excluded.resolved
                """) { statement throws(StoreError) in
                try statement.bind(contact.pubky.z32, at: 1)
                try statement.bind(contact.name, at: 2)
                try statement.bind(contact.host, at: 3)
                try statement.bind(Int64(contact.port), at: 4)
                try statement.bind(contact.addedAt, at: 5)
                if contact.nodeKey == contact.pubky {
                    try statement.bindNull(at: 6)
                } else {
                    try statement.bind(contact.nodeKey.z32, at: 6)
                }
                try statement.bind(contact.resolved ? 1 : 0, at: 7)
                try statement.run()
            }
            return nil
        }
    }

    public func renameContact(pubky: Pubky, to name: String) throws(StoreError) -> ContactConflict? {
        try connection.transaction { () throws(StoreError) -> ContactConflict? in
            if let holder = try contact(named: name), holder.pubky != pubky {
                return .nameHeldBy(existing: holder)
            }
            try connection.withStatement("UPDATE contacts SET name = ?1 WHERE pubky = ?2") { statement throws(StoreError) in
                try statement.bind(name, at: 1)
                try statement.bind(pubky.z32, at: 2)
                try statement.run()
            }
            return nil
        }
    }

    private func deleteContact(_ pubky: Pubky) throws(StoreError) {
        try connection.withStatement("DELETE FROM contacts WHERE pubky = ?1") { statement throws(StoreError) in
            try statement.bind(pubky.z32, at: 1)
            try statement.run()
        }
    }

    public func contacts() throws(StoreError) -> [SavedContact] {
        try connection.withStatement("""
            SELECT pubky, name, host, port, added_at, node_key, resolved FROM contacts ORDER BY name, pubky
            """) { statement throws(StoreError) -> [SavedContact] in
            var contacts: [SavedContact] = []
            while try statement.step() {
                contacts.append(try Self.contact(statement))
            }
            return contacts
        }
    }

    public func contact(pubky: Pubky) throws(StoreError) -> SavedContact? {
        try connection.withStatement("""
            SELECT pubky, name, host, port, added_at, node_key, resolved FROM contacts WHERE pubky = ?1
            """) { statement throws(StoreError) -> SavedContact? in
            try statement.bind(pubky.z32, at: 1)
            return try statement.step() ? Self.contact(statement) : nil
        }
    }

    public func contact(named name: String) throws(StoreError) -> SavedContact? {
        try connection.withStatement("""
            SELECT pubky, name, host, port, added_at, node_key, resolved FROM contacts WHERE name = ?1
            """) { statement throws(StoreError) -> SavedContact? in
            try statement.bind(name, at: 1)
            return try statement.step() ? Self.contact(statement) : nil
        }
    }

    @discardableResult
    public func removeContact(pubky: Pubky) throws(StoreError) -> Bool {
        try connection.withStatement("DELETE FROM contacts WHERE pubky = ?1") { statement throws(StoreError) -> Bool in
            try statement.bind(pubky.z32, at: 1)
            try statement.run()
            return statement.changes > 0
        }
    }

    /// The contact whose node proves `nodeKey` (a peer that connected to this node).
    public func contact(nodeKey: Pubky) throws(StoreError) -> SavedContact? {
        try connection.withStatement("""
            SELECT pubky, name, host, port, added_at, node_key, resolved FROM contacts WHERE COALESCE(node_key, pubky) = ?1 ORDER BY name LIMIT 1
            """) { statement throws(StoreError) -> SavedContact? in
            try statement.bind(nodeKey.z32, at: 1)
            return try statement.step() ? Self.contact(statement) : nil
        }
    }

    /// What a fresh resolution of `pubky` found: its node key always, its endpoint only if
    /// the address follows the packet (`resolved`), never over an address the user typed.
    public func updateResolution(pubky: Pubky, nodeKey: Pubky, host: String, port: UInt16) throws(StoreError) {
        try connection.withStatement("""
            UPDATE contacts SET node_key = ?2,
                host = CASE resolved WHEN 1 THEN ?3 ELSE host END, port = CASE resolved WHEN 1 THEN ?4 ELSE port END
            WHERE pubky = ?1
            """) { statement throws(StoreError) in
            try statement.bind(pubky.z32, at: 1)
            if nodeKey == pubky { try statement.bindNull(at: 2) } else { try statement.bind(nodeKey.z32, at: 2) }
            try statement.bind(host, at: 3)
            try statement.bind(Int64(port), at: 4)
            try statement.run()
        }
    }


    /// Columns: pubky, name, host, port, added_at, node_key, resolved. Re-validated: a row that no longer makes a valid contact is
    /// reported, not used to dial someone.
    private static func contact(_ row: SQLiteStatement) throws(StoreError) -> SavedContact {
        let port = row.int64(3)
        do {
            let nodeKey = row.isNull(5) ? nil : try Pubky(parsing: row.string(5))
            return try SavedContact(pubky: row.string(0), name: row.string(1), host: row.string(2),
                                    port: Int(clamping: port), addedAt: row.int64(4), nodeKey: nodeKey, resolved: row.int64(6) == 1)
        } catch {
            throw .corrupt("a stored contact is invalid (\(error))")
        }
    }
}
