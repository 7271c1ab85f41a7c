import Transport

extension SQLiteSwapStore: ContactStore {
    public func saveContact(_ contact: SavedContact) throws(StoreError) {
        try connection.transaction { () throws(StoreError) in
            let nameTaken = try connection.withStatement("""
                SELECT 1 FROM contacts WHERE name = ?1 AND pubky <> ?2
                """) { statement throws(StoreError) -> Bool in
                try statement.bind(contact.name, at: 1)
                try statement.bind(contact.pubky.z32, at: 2)
                return try statement.step()
            }
            if nameTaken {
                throw StoreError.database(operation: "save contact",
                                          message: "another contact is already named \"\(contact.name)\"")
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
