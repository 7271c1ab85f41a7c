import Foundation
import Transport
import XCTest
@testable import PeerNode

final class StoreMigrationTests: XCTestCase {
    func testFreshDatabaseGetsTheLatestSchema() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        let settings = try await store.settings()
        XCTAssertEqual(settings.userVersion, 3)
        XCTAssertEqual(Migrations.latestVersion, 3)
        XCTAssertEqual(Migrations.all.map(\.version), Array(1...Migrations.latestVersion), "versions are consecutive")
    }

    /// v1 creates tables without IF NOT EXISTS, so re-running it would fail: a clean
    /// re-open with the data intact shows it ran once.
    func testReopeningDoesNotRerunMigrationsAndKeepsData() async throws {
        let path = try StoreFixture.directory(for: self) + "/node.sqlite"
        do {
            let store = try SQLiteSwapStore.open(path: path)
            _ = try await store.create(StoreFixture.record("s", index: 3), firstEvent: "quote_accepted", data: .object([:]), at: 1)
            await store.close()
        }
        let reopened = try SQLiteSwapStore.open(path: path)
        let settings = try await reopened.settings()
        XCTAssertEqual(settings.userVersion, 3)
        let record = try await reopened.swap("s")
        XCTAssertEqual(record, StoreFixture.record("s", index: 3))
        let index = try await reopened.reserveSwapIndex()
        XCTAssertEqual(index, 4, "the counter survived the re-open")
    }

    func testDatabaseFromANewerPeernodeIsRefusedAndLeftAlone() async throws {
        let path = try StoreFixture.directory(for: self) + "/node.sqlite"
        do {
            let raw = try SQLiteConnection(path: path)
            try raw.setUserVersion(Migrations.latestVersion + 1)
            raw.close()
        }
        XCTAssertThrowsError(try SQLiteSwapStore.open(path: path)) { error in
            XCTAssertEqual(error as? StoreError, .corrupt(
                "the database has schema version 4, but this peernode knows versions up to 3; run a newer peernode"))
        }
        let raw = try SQLiteConnection(path: path)
        XCTAssertEqual(try raw.userVersion(), 4)
        let tables = try raw.withStatement("SELECT count(*) FROM sqlite_master") { statement throws(StoreError) -> Int64 in
            _ = try statement.step()
            return statement.int64(0)
        }
        XCTAssertEqual(tables, 0, "nothing was created in the refused database")
    }

    func testAFailingMigrationLeavesTheDatabaseAtItsPreviousVersion() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        // A table v1 wants to create already exists: v1 fails half-way through.
        try connection.execute("CREATE TABLE contacts (x)")
        XCTAssertThrowsError(try Migrations.apply(to: connection)) { error in
            guard case .database(_, let message)? = error as? StoreError else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("contacts"), message)
        }
        XCTAssertEqual(try connection.userVersion(), 0)
        let swapsTables = try connection.withStatement("SELECT count(*) FROM sqlite_master WHERE name = 'swaps'") { statement throws(StoreError) -> Int64 in
            _ = try statement.step()
            return statement.int64(0)
        }
        XCTAssertEqual(swapsTables, 0, "the tables created before the failure were rolled back")
    }

    /// v2 (audit H-5): swaps stored by a v1 database were derived under the legacy scheme
    /// and read back as such; new swaps keep the scheme they were written with.
    func testVersion2ReadsOldSwapsAsLegacyAndKeepsTheSchemeOfNewOnes() async throws {
        let path = try StoreFixture.directory(for: self) + "/node.sqlite"
        do {
            let raw = try SQLiteConnection(path: path)
            for statement in Migrations.version1.statements { try raw.execute(statement) }
            try raw.setUserVersion(1)
            try raw.execute("""
                INSERT INTO swaps (id, role, swap_index, peer, created_at, contract)
                VALUES ('old', 'client', 4, 'peer', 1, '{}')
                """)
            raw.close()
        }
        let store = try SQLiteSwapStore.open(path: path)
        let old = try await store.swap("old")
        XCTAssertEqual(old?.keyScheme, .legacy)
        XCTAssertEqual(old?.swapIndex, 4)
        let new = SwapRecord(id: "new", role: .client, swapIndex: 5, keyScheme: .networked, peer: "peer", createdAt: 2,
                             contract: .object([:]))
        _ = try await store.create(new, firstEvent: "quoted", data: .object([:]), at: 2)
        let readBack = try await store.swap("new")
        XCTAssertEqual(readBack, new)
        let all = try await store.allSwaps(limit: 10).map(\.keyScheme)
        XCTAssertEqual(all, [.networked, .legacy])
    }
}
