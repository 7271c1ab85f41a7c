/// The schema's history, applied in order and recorded in `PRAGMA user_version`. A shipped
/// migration is never edited: a change is a new migration with the next version.
enum Migrations {
    static let all: [Migration] = [version1, version2, version3]

    /// The newest schema this binary knows.
    static var latestVersion: Int32 { all.last?.version ?? 0 }

    /// Brings the database up to `latestVersion` in one transaction, so a crash mid-way
    /// leaves the previous version intact. A database from a newer binary is refused
    /// rather than written with assumptions that may no longer hold.
    static func apply(to connection: SQLiteConnection) throws(StoreError) {
        try connection.transaction { () throws(StoreError) in
            // Read inside the write lock: another process may have migrated meanwhile.
            let current = try connection.userVersion()
            if current > Int64(latestVersion) {
                throw StoreError.corrupt(
                    "the database has schema version \(current), but this peernode knows versions up to \(latestVersion); run a newer peernode")
            }
            for migration in all where Int64(migration.version) > current {
                for statement in migration.statements {
                    try connection.execute(statement)
                }
                try connection.setUserVersion(migration.version)
            }
        }
    }

    /// v1: swaps (contract written once), their append-only event logs, the swap index
    /// counter, contacts, the offer cache and a small key-value table for wallet data.
    static let version1 = Migration(version: 1, statements: [
        """
        CREATE TABLE swaps (
            id TEXT PRIMARY KEY NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('client', 'provider')),
            swap_index INTEGER NOT NULL CHECK (swap_index BETWEEN 0 AND 4294967295),
            peer TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            contract TEXT NOT NULL,
            UNIQUE (role, swap_index)
        )
        """,
        "CREATE INDEX swaps_created ON swaps (created_at)",
        """
        CREATE TABLE swap_events (
            swap_id TEXT NOT NULL REFERENCES swaps (id),
            sequence INTEGER NOT NULL CHECK (sequence >= 1),
            kind TEXT NOT NULL,
            data TEXT NOT NULL,
            is_final INTEGER NOT NULL CHECK (is_final IN (0, 1)),
            at INTEGER NOT NULL,
            PRIMARY KEY (swap_id, sequence)
        ) WITHOUT ROWID
        """,
        // The contract and the log are append-only: the database itself refuses changes,
        // so no code path (or hand-edited SQL) can rewrite history.
        """
        CREATE TRIGGER swaps_immutable BEFORE UPDATE ON swaps
        BEGIN SELECT RAISE(ABORT, 'a swap contract is written once'); END
        """,
        """
        CREATE TRIGGER swap_events_immutable BEFORE UPDATE ON swap_events
        BEGIN SELECT RAISE(ABORT, 'swap events are append-only'); END
        """,
        """
        CREATE TRIGGER swap_events_undeletable BEFORE DELETE ON swap_events
        BEGIN SELECT RAISE(ABORT, 'swap events are append-only'); END
        """,
        """
        CREATE TABLE swap_index_counter (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            next_index INTEGER NOT NULL CHECK (next_index BETWEEN 0 AND 4294967296)
        )
        """,
        "INSERT INTO swap_index_counter (id, next_index) VALUES (1, 0)",
        """
        CREATE TABLE contacts (
            pubky TEXT PRIMARY KEY NOT NULL,
            name TEXT NOT NULL UNIQUE,
            host TEXT NOT NULL,
            port INTEGER NOT NULL CHECK (port BETWEEN 1 AND 65535),
            added_at INTEGER NOT NULL
        )
        """,
        """
        CREATE TABLE offer_cache (
            provider TEXT PRIMARY KEY NOT NULL,
            offer TEXT NOT NULL,
            valid_until INTEGER NOT NULL,
            fetched_at INTEGER NOT NULL
        )
        """,
        "CREATE INDEX offer_cache_valid_until ON offer_cache (valid_until)",
        """
        CREATE TABLE kv (
            key TEXT PRIMARY KEY NOT NULL,
            value BLOB NOT NULL
        )
        """,
    ])

    /// v2 (audit H-5): each swap records the derivation its secrets come from
    /// (`SwapKeyScheme`). Swaps made before v2 derive under the legacy scheme (0); new swaps
    /// record theirs. Adding a column fires no UPDATE trigger, so the contract stays written once.
    static let version2 = Migration(version: 2, statements: [
        "ALTER TABLE swaps ADD COLUMN key_scheme INTEGER NOT NULL DEFAULT 0 CHECK (key_scheme BETWEEN 0 AND 255)",
    ])

    /// v3 (docs/PUBKY.md): a contact's node key when its Pubky identity certifies another
    /// key (NULL: the pubky itself), whether its address follows its pkarr packet, and the
    /// newest verified pkarr packet known per key, so a restart never goes back to an older one.
    static let version3 = Migration(version: 3, statements: [
        "ALTER TABLE contacts ADD COLUMN node_key TEXT",
        "ALTER TABLE contacts ADD COLUMN resolved INTEGER NOT NULL DEFAULT 0 CHECK (resolved IN (0, 1))",
        "CREATE INDEX contacts_node_key ON contacts (node_key)",
        """
        CREATE TABLE pkarr_packets (
            pubky TEXT PRIMARY KEY NOT NULL,
            packet BLOB NOT NULL,
            fetched_at INTEGER NOT NULL
        )
        """,
    ])
}
