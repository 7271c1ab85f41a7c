import Foundation
import HTLC
import Transport
import XCTest
@testable import PeerNode

/// The swap index high-water mark beside the seed (audit H-5): a database that is new,
/// stale or simply restarted never hands out an index at or below one used before.
final class StoreIndexMarkTests: XCTestCase {
    private var directory = ""
    private var databasePath: String { directory + "/peernode.db" }
    private var mark: SwapIndexMark { SwapIndexMark(path: directory + "/" + SwapIndexMark.fileName) }

    override func setUpWithError() throws {
        directory = try StoreFixture.directory(for: self)
    }

    private func openStore(databaseIsNew: Bool = false) async throws -> (SQLiteSwapStore, SwapIndexMarkCheck) {
        let store = try SQLiteSwapStore.open(path: databasePath)
        return (store, try await store.attachIndexMark(mark, databaseIsNew: databaseIsNew))
    }

    private func markFile() throws -> String {
        try String(contentsOfFile: mark.path, encoding: .utf8)
    }

    private func removeDatabase() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: databasePath + suffix) }
    }

    private func reserve(_ store: SQLiteSwapStore, _ count: Int) async throws -> [UInt32] {
        var indexes: [UInt32] = []
        for _ in 0..<count { indexes.append(try await store.reserveSwapIndex()) }
        return indexes
    }

    func testANewDatabaseAfterTheMarkAdvancedHandsOutIndexesAboveItAndRequiresRecovery() async throws {
        let (first, check) = try await openStore()
        XCTAssertNil(check.recoveryReason)
        XCTAssertEqual(try markFile(), "0\n", "a new node starts its mark at 0")
        let used = try await reserve(first, 5)
        XCTAssertEqual(used, [0, 1, 2, 3, 4])
        XCTAssertEqual(try markFile(), "100\n")
        await first.close()

        removeDatabase()
        let (fresh, freshCheck) = try await openStore(databaseIsNew: true)
        XCTAssertEqual(freshCheck.counterBefore, 0)
        XCTAssertEqual(freshCheck.counter, 100)
        XCTAssertNotNil(freshCheck.recoveryReason)
        let reason = try await RecoveryFlag.reason(in: fresh)
        XCTAssertEqual(reason, freshCheck.recoveryReason)
        let next = try await fresh.reserveSwapIndex()
        XCTAssertEqual(next, 100, "no index the lost database handed out comes back")
        XCTAssertEqual(try markFile(), "200\n")
        let wasSet = try await RecoveryFlag.clear(in: fresh)
        XCTAssertTrue(wasSet)
        let cleared = try await RecoveryFlag.reason(in: fresh)
        XCTAssertNil(cleared)
    }

    /// A backup restored from before the mark's last step is older than the file: flagged,
    /// and its counter skips past every index the newer database could have handed out.
    func testAStaleDatabaseIsRecognisedAndSkipsPastTheMark() async throws {
        let (store, _) = try await openStore()
        _ = try await reserve(store, 3)
        await store.close()
        let backup = directory + "/backup.db"
        try FileManager.default.copyItem(atPath: databasePath, toPath: backup)

        let (later, _) = try await openStore()
        let used = try await reserve(later, 150)
        XCTAssertEqual(used.last, 249, "the restart skipped to the mark (100), then 150 more")
        XCTAssertEqual(try markFile(), "300\n")
        await later.close()

        removeDatabase()
        try FileManager.default.copyItem(atPath: backup, toPath: databasePath)
        let (restored, check) = try await openStore()
        XCTAssertEqual(check.counterBefore, 3, "the backup was taken at index 3")
        XCTAssertEqual(check.counter, 300)
        XCTAssertNotNil(check.recoveryReason, "the restored database is older than the mark")
        let next = try await restored.reserveSwapIndex()
        XCTAssertEqual(next, 300)
    }

    /// A plain restart skips to the mark too (a database as new as the last step cannot be
    /// told from a stale one of that step) but needs no recovery.
    func testARestartSkipsToTheMarkWithoutRequiringRecovery() async throws {
        let (store, _) = try await openStore()
        _ = try await reserve(store, 3)
        await store.close()
        let (again, check) = try await openStore()
        XCTAssertNil(check.recoveryReason)
        let reason = try await RecoveryFlag.reason(in: again)
        XCTAssertNil(reason)
        let next = try await again.reserveSwapIndex()
        XCTAssertEqual(next, 100)
    }

    /// The file is on disk before the index is returned: when it cannot be written, the
    /// index is not handed out (it is skipped, never reused).
    func testTheMarkIsWrittenBeforeTheIndexIsReturned() async throws {
        let (store, _) = try await openStore()
        _ = try await reserve(store, 1)
        XCTAssertEqual(try markFile(), "100\n")
        _ = try await reserve(store, 99)
        // The temporary file's place is taken: the next write of the mark fails.
        try FileManager.default.createDirectory(atPath: mark.path + ".tmp", withIntermediateDirectories: false)
        do {
            let index = try await store.reserveSwapIndex()
            XCTFail("index \(index) was handed out although the mark covering it was not written")
        } catch {
            guard case .database(let operation, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(operation, "write the swap index mark")
        }
        XCTAssertEqual(try markFile(), "100\n")
        try FileManager.default.removeItem(atPath: mark.path + ".tmp")
        let next = try await store.reserveSwapIndex()
        XCTAssertEqual(next, 101, "index 100 was skipped, not handed out later")
        XCTAssertEqual(try markFile(), "200\n")
    }

    /// A swap recorded with an index not reserved here (a swap re-created by recovery)
    /// moves the mark past it as well.
    func testACreatedSwapMovesTheMarkPastItsIndex() async throws {
        let (store, _) = try await openStore()
        _ = try await store.create(StoreFixture.record("recovered", index: 420), firstEvent: "recovered",
                                   data: .object([:]), at: 1)
        XCTAssertEqual(try markFile(), "500\n")
        let next = try await store.reserveSwapIndex()
        XCTAssertEqual(next, 421)
    }

    /// A node made before the mark existed: its database is taken as it is, and the mark
    /// starts from its counter.
    func testANodeWithoutAMarkStartsOneFromItsDatabase() async throws {
        do {
            let store = try SQLiteSwapStore.open(path: databasePath)
            _ = try await reserve(store, 7)
            await store.close()
        }
        let (store, check) = try await openStore()
        XCTAssertNil(check.fileMark)
        XCTAssertNil(check.recoveryReason)
        XCTAssertEqual(check.counter, 7)
        XCTAssertEqual(try markFile(), "7\n")
        let next = try await store.reserveSwapIndex()
        XCTAssertEqual(next, 7)
        XCTAssertEqual(try markFile(), "100\n")
    }

    func testAnUnreadableMarkStopsTheStart() async throws {
        try Data("12a\n".utf8).write(to: URL(fileURLWithPath: mark.path))
        let store = try SQLiteSwapStore.open(path: databasePath)
        do {
            _ = try await store.attachIndexMark(mark, databaseIsNew: false)
            XCTFail("an unreadable mark was accepted")
        } catch {
            guard case .corrupt(let what) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(what.contains(mark.path), what)
        }
    }

    /// Every start skips at most one step of indexes; the scanner's default gap limit must
    /// walk across such a run of unused indexes, or recovery stops short of later swaps.
    func testTheStepFitsTheRecoveryGapLimit() {
        XCTAssertLessThanOrEqual(SwapIndexMark.step, UInt64(RecoveryScanner.defaultGapLimit))
    }
}
