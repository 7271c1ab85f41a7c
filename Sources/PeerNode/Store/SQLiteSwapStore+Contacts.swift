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
                INSERT INTO contacts (pubky, name, host, port, added_at) VALUES (?1, ?2, ?3, ?4, ?5)
                ON CONFLICT (pubky) DO UPDATE SET name = excluded.name, host = excluded.host, port = excluded.port
                """) { statement throws(StoreError) in
                try statement.bind(contact.pubky.z32, at: 1)
                try statement.bind(contact.name, at: 2)
                try statement.bind(contact.host, at: 3)
                try statement.bind(Int64(contact.port), at: 4)
                try statement.bind(contact.addedAt, at: 5)
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
            SELECT pubky, name, host, port, added_at FROM contacts ORDER BY name, pubky
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
            SELECT pubky, name, host, port, added_at FROM contacts WHERE pubky = ?1
            """) { statement throws(StoreError) -> SavedContact? in
            try statement.bind(pubky.z32, at: 1)
            return try statement.step() ? Self.contact(statement) : nil
        }
    }

    public func contact(named name: String) throws(StoreError) -> SavedContact? {
        try connection.withStatement("""
            SELECT pubky, name, host, port, added_at FROM contacts WHERE name = ?1
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

    /// Columns: pubky, name, host, port, added_at. Re-validated: a row that no longer makes
    /// a valid contact is reported, not used to dial someone.
    private static func contact(_ row: SQLiteStatement) throws(StoreError) -> SavedContact {
        let port = row.int64(3)
        do {
            return try SavedContact(pubky: row.string(0), name: row.string(1), host: row.string(2),
                                    port: Int(clamping: port), addedAt: row.int64(4))
        } catch {
            throw .corrupt("a stored contact is invalid (\(error))")
        }
    }
}
