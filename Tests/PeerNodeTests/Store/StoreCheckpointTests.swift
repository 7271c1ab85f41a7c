import Foundation
import Transport
import XCTest
@testable import PeerNode

/// The WAL is copied back into the database file by `WALCheckpointer`'s thread, never by a
/// commit (which would make the step it writes, and the act after it, wait).
final class StoreCheckpointTests: XCTestCase {
    /// WAL frames of the default 4,096-byte pages, with their 24-byte headers.
    private func walFrames(_ path: String) throws -> Int {
        let size = (try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)?.intValue ?? 0
        return max(0, size - 32) / (4_096 + 24)
    }

    /// Appends `count` events of about 8 kB each (two or three pages a commit).
    private func appendBulky(_ store: SQLiteSwapStore, count: Int) async throws {
        let filler = JSONValue.string(String(repeating: "ab", count: 4_000))
        for n in 0..<count {
            _ = try await store.append("lock_seen", data: .object(["n": .integer(Int64(n)), "filler": filler]),
                                       isFinal: false, to: "s", at: Int64(n + 2))
        }
    }

    func testNoCommitCheckpointsTheLog() async throws {
        let path = try StoreFixture.directory(for: self) + "/node.sqlite"
        // A threshold never reached: only a commit could checkpoint now.
        let store = try SQLiteSwapStore.open(path: path, checkpointThresholdFrames: .max)
        _ = try await store.create(StoreFixture.record("s", index: 0), firstEvent: "quoted", data: .object([:]), at: 1)
        try await appendBulky(store, count: 600)
        // SQLite's automatic checkpoint would have restarted the log near 1,000 frames.
        XCTAssertGreaterThan(try walFrames(path), 1_200)
        let completed = await store.checkpointsCompleted
        XCTAssertEqual(completed, 0)
        let events = try await store.events(of: "s")
        XCTAssertEqual(events.count, 601)
    }

    func testTheThreadCheckpointsOnceTheLogPassesItsThresholdAndEveryCommitStaysReadable() async throws {
        let directory = try StoreFixture.directory(for: self)
        let path = directory + "/node.sqlite"
        let store = try SQLiteSwapStore.open(path: path, checkpointThresholdFrames: 50)
        _ = try await store.create(StoreFixture.record("s", index: 0), firstEvent: "quoted", data: .object([:]), at: 1)
        try await appendBulky(store, count: 300)
        // The thread's checkpoints copy the events into the database file (how far the log
        // grew meanwhile depends on how soon the thread ran: not asserted).
        try await clientEventually("the checkpoint thread copied the events into the file") {
            let mainSize = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
            return mainSize > 100 * 8_000
        }
        let completed = await store.checkpointsCompleted
        XCTAssertGreaterThan(completed, 0)

        // What a crash leaves (the file and its log, copied while the store is open) holds
        // every commit, whether it is in the file or still in the log.
        let crashed = directory + "/crashed.sqlite"
        try FileManager.default.copyItem(atPath: path, toPath: crashed)
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: crashed + "-wal")
        let reopened = try SQLiteSwapStore.open(path: crashed)
        let events = try await reopened.events(of: "s")
        XCTAssertEqual(events.count, 301)
        XCTAssertEqual(events.last?.data["n"], .integer(299))
        await store.close()
        await reopened.close()
    }
}
