import Foundation
import Transport
import XCTest
@testable import PeerNode

final class StoreDurabilityTests: XCTestCase {
    func testFileStoreRunsInWALWithFullSynchronousCommitsAndForeignKeys() async throws {
        let path = try StoreFixture.directory(for: self) + "/node.sqlite"
        let store = try SQLiteSwapStore.open(path: path)
        let settings = try await store.settings()
        XCTAssertEqual(settings.journalMode, "wal")
        XCTAssertEqual(settings.synchronous, 2, "2 is FULL")
        XCTAssertEqual(settings.foreignKeys, 1)
        XCTAssertEqual(settings.userVersion, Int64(Migrations.latestVersion))
    }

    /// An abrupt stop: the first store is never closed (no checkpoint, no clean shutdown),
    /// and its files are copied while it is still open, the way they would be found after
    /// a power cut. The copy holds every write whose call had returned.
    func testAnAppendThatReturnedIsOnDiskBeforeTheStoreCloses() async throws {
        let directory = try StoreFixture.directory(for: self)
        let path = directory + "/node.sqlite"
        let running = try SQLiteSwapStore.open(path: path)
        _ = try await running.create(StoreFixture.record("s", index: 0), firstEvent: "quote_accepted", data: .object([:]), at: 1)
        let intent = try await running.append("pay_started", data: .object(["payment_hash": .string("00ff")]), isFinal: false, to: "s", at: 2)

        // What a crash leaves: the main file and the WAL. The shared-memory index is
        // rebuilt from the WAL on open, so it is deliberately left behind.
        XCTAssertTrue(FileManager.default.fileExists(atPath: path + "-wal"))
        let crashed = directory + "/crashed.sqlite"
        try FileManager.default.copyItem(atPath: path, toPath: crashed)
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: crashed + "-wal")

        let restarted = try SQLiteSwapStore.open(path: crashed)
        let last = try await restarted.lastEvent(of: "s")
        XCTAssertEqual(last, intent)
        let unfinished = try await restarted.unfinishedSwaps(role: .client)
        XCTAssertEqual(unfinished.map(\.id), ["s"])

        // A second store on the live file, while the first is still open, sees it too and
        // continues the log where the first left off.
        let second = try SQLiteSwapStore.open(path: path)
        let next = try await second.append("claim_broadcast", data: .object([:]), isFinal: false, to: "s", at: 3)
        XCTAssertEqual(next.sequence, 3)
        let seenByFirst = try await running.lastEvent(of: "s")
        XCTAssertEqual(seenByFirst, next)
    }

    func testDatabaseFileAndItsWALAreOwnerOnly() async throws {
        let path = try StoreFixture.directory(for: self) + "/node.sqlite"
        let store = try SQLiteSwapStore.open(path: path)
        try await store.setValue([1, 2, 3], forKey: "k")
        XCTAssertEqual(try StoreFixture.fileMode(path), 0o600)
        XCTAssertEqual(try StoreFixture.fileMode(path + "-wal"), 0o600)
        await store.close()
    }

    func testAnExistingWorldReadableDatabaseIsTightenedOnOpen() async throws {
        let path = try StoreFixture.directory(for: self) + "/node.sqlite"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o644]))
        let store = try SQLiteSwapStore.open(path: path)
        XCTAssertEqual(try StoreFixture.fileMode(path), 0o600)
        let settings = try await store.settings()
        XCTAssertEqual(settings.userVersion, Int64(Migrations.latestVersion))
    }

    func testOpeningInAMissingDirectoryFailsWithTheReason() throws {
        let path = try StoreFixture.directory(for: self) + "/missing/node.sqlite"
        XCTAssertThrowsError(try SQLiteSwapStore.open(path: path)) { error in
            XCTAssertEqual(error as? StoreError, .database(operation: "create \(path)", message: "No such file or directory"))
        }
    }

    func testInMemoryPathsAreNotAcceptedAsFiles() {
        XCTAssertThrowsError(try SQLiteSwapStore.open(path: ":memory:"))
        XCTAssertThrowsError(try SQLiteSwapStore.open(path: ""))
    }
}

extension SQLiteSwapStore {
    /// The connection's settings, for tests to check what the store relies on.
    func settings() throws(StoreError) -> (journalMode: String, synchronous: Int64, foreignKeys: Int64, userVersion: Int64) {
        let journalMode = try connection.pragmaText("PRAGMA journal_mode")
        let synchronous = try connection.withStatement("PRAGMA synchronous") { statement throws(StoreError) -> Int64 in
            _ = try statement.step()
            return statement.int64(0)
        }
        let foreignKeys = try connection.withStatement("PRAGMA foreign_keys") { statement throws(StoreError) -> Int64 in
            _ = try statement.step()
            return statement.int64(0)
        }
        return (journalMode, synchronous, foreignKeys, try connection.userVersion())
    }
}
