import HTLC
import Transport
import XCTest
@testable import PeerNode

final class StoreSwapTests: XCTestCase {
    func testCreateWritesContractAndFirstEvent() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        let record = StoreFixture.record("swap-a", index: 0)
        let first = try await store.create(record, firstEvent: "quote_accepted", data: .object(["quote_id": .string("q1")]), at: 10)
        XCTAssertEqual(first, SwapEvent(sequence: 1, kind: "quote_accepted", data: .object(["quote_id": .string("q1")]), isFinal: false, at: 10))
        let stored = try await store.swap("swap-a")
        XCTAssertEqual(stored, record)
        let events = try await store.events(of: "swap-a")
        XCTAssertEqual(events, [first])
        let last = try await store.lastEvent(of: "swap-a")
        XCTAssertEqual(last, first)
    }

    func testAppendAssignsConsecutiveSequencesAndReadsBackInOrder() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        _ = try await store.create(StoreFixture.record("s", index: 0), firstEvent: "quote_accepted", data: .object([:]), at: 1)
        let kinds = ["pay_started", "lock_seen", "claim_broadcast", "claim_observed"]
        for (offset, kind) in kinds.enumerated() {
            let event = try await store.append(kind, data: .object(["n": .integer(offset)]), isFinal: false, to: "s", at: Int64(2 + offset))
            XCTAssertEqual(event.sequence, Int64(offset + 2))
        }
        let done = try await store.append("completed", data: .object(["txid": .string("ab" + String(repeating: "0", count: 62))]), isFinal: true, to: "s", at: 9)
        XCTAssertEqual(done.sequence, 6)
        XCTAssertTrue(done.isFinal)

        let events = try await store.events(of: "s")
        XCTAssertEqual(events.map(\.sequence), [1, 2, 3, 4, 5, 6])
        XCTAssertEqual(events.map(\.kind), ["quote_accepted"] + kinds + ["completed"])
        XCTAssertEqual(events[2].data, .object(["n": .integer(1)]))
        let last = try await store.lastEvent(of: "s")
        XCTAssertEqual(last, done)
    }

    func testAppendAfterFinalEventIsRefusedAndNothingIsWritten() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        _ = try await store.create(StoreFixture.record("s", index: 0), firstEvent: "quote_accepted", data: .object([:]), at: 1)
        _ = try await store.append("refunded", data: .object([:]), isFinal: true, to: "s", at: 2)
        await XCTAssertThrowsStoreError(.swapFinished("s")) {
            () async throws(StoreError) in try await store.append("claim_broadcast", data: .object([:]), isFinal: false, to: "s", at: 3)
        }
        let events = try await store.events(of: "s")
        XCTAssertEqual(events.map(\.kind), ["quote_accepted", "refunded"])
    }

    func testDuplicateSwapIsRefusedAndTheFirstContractStays() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        let original = StoreFixture.record("dup", index: 0)
        _ = try await store.create(original, firstEvent: "quote_accepted", data: .object([:]), at: 1)
        let impostor = SwapRecord(id: "dup", role: .provider, swapIndex: 7, keyScheme: .current, peer: "other", createdAt: 5, contract: .object([:]))
        await XCTAssertThrowsStoreError(.duplicateSwap("dup")) {
            () async throws(StoreError) in try await store.create(impostor, firstEvent: "x", data: .object([:]), at: 2)
        }
        let stored = try await store.swap("dup")
        XCTAssertEqual(stored, original)
        let events = try await store.events(of: "dup")
        XCTAssertEqual(events.count, 1)
    }

    func testUnknownSwapIsRefusedOnAppendAndAbsentOnRead() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        await XCTAssertThrowsStoreError(.unknownSwap("nope")) {
            () async throws(StoreError) in try await store.append("pay_started", data: .object([:]), isFinal: false, to: "nope", at: 1)
        }
        let record = try await store.swap("nope")
        XCTAssertNil(record)
        let events = try await store.events(of: "nope")
        XCTAssertEqual(events, [])
        let last = try await store.lastEvent(of: "nope")
        XCTAssertNil(last)
    }

    func testUnfinishedSwapsAreOldestFirstAndFilteredByRole() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        _ = try await store.create(StoreFixture.record("c-new", role: .client, index: 0, createdAt: 300), firstEvent: "quote_accepted", data: .object([:]), at: 300)
        _ = try await store.create(StoreFixture.record("p-old", role: .provider, index: 1, createdAt: 100), firstEvent: "swap_requested", data: .object([:]), at: 100)
        _ = try await store.create(StoreFixture.record("c-old", role: .client, index: 2, createdAt: 200), firstEvent: "quote_accepted", data: .object([:]), at: 200)
        _ = try await store.create(StoreFixture.record("c-done", role: .client, index: 3, createdAt: 150), firstEvent: "quote_accepted", data: .object([:]), at: 150)
        _ = try await store.append("completed", data: .object([:]), isFinal: true, to: "c-done", at: 160)
        // A temporary failure is not final: the swap still needs resuming.
        _ = try await store.append("claim_failed", data: .object([:]), isFinal: false, to: "c-old", at: 210)

        let all = try await store.unfinishedSwaps(role: nil)
        XCTAssertEqual(all.map(\.id), ["p-old", "c-old", "c-new"])
        let clients = try await store.unfinishedSwaps(role: .client)
        XCTAssertEqual(clients.map(\.id), ["c-old", "c-new"])
        let providers = try await store.unfinishedSwaps(role: .provider)
        XCTAssertEqual(providers.map(\.id), ["p-old"])
    }

    func testAllSwapsAreNewestFirstUpToTheLimit() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        for (i, created) in [Int64(50), 10, 30, 40, 20].enumerated() {
            _ = try await store.create(StoreFixture.record("s\(created)", index: UInt32(i), createdAt: created), firstEvent: "quote_accepted", data: .object([:]), at: created)
        }
        _ = try await store.append("completed", data: .object([:]), isFinal: true, to: "s40", at: 41)
        let three = try await store.allSwaps(limit: 3)
        XCTAssertEqual(three.map(\.id), ["s50", "s40", "s30"])
        let every = try await store.allSwaps(limit: 100)
        XCTAssertEqual(every.map(\.id), ["s50", "s40", "s30", "s20", "s10"])
        let none = try await store.allSwaps(limit: 0)
        XCTAssertEqual(none, [])
    }

    func testSwapIndicesAreNeverReusedIncludingIndicesOfCreatedSwaps() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        let first = try await store.reserveSwapIndex()
        let second = try await store.reserveSwapIndex()
        XCTAssertEqual([first, second], [0, 1])
        // Recovery recreates a swap at an index this store never handed out.
        _ = try await store.create(StoreFixture.record("recovered", index: 9), firstEvent: "recovered", data: .object([:]), at: 1)
        let next = try await store.reserveSwapIndex()
        XCTAssertEqual(next, 10)
    }

    func testTheSameSwapIndexTwiceForOneRoleIsRefused() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        _ = try await store.create(StoreFixture.record("a", role: .client, index: 4), firstEvent: "quote_accepted", data: .object([:]), at: 1)
        do {
            _ = try await store.create(StoreFixture.record("b", role: .client, index: 4), firstEvent: "quote_accepted", data: .object([:]), at: 1)
            XCTFail("a second client swap at index 4 was accepted")
        } catch {
            guard case .database(let operation, let message) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(operation, "step")
            XCTAssertTrue(message.contains("UNIQUE"), message)
        }
        let b = try await store.swap("b")
        XCTAssertNil(b)
    }

    func testContractAndEventsCannotBeRewrittenEvenBySQL() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        _ = try await store.create(StoreFixture.record("s", index: 0), firstEvent: "quote_accepted", data: .object([:]), at: 1)
        let refusals = await store.tryRewritingHistory()
        XCTAssertEqual(refusals.count, 3)
        for message in refusals {
            XCTAssertTrue(message.contains("written once") || message.contains("append-only"), message)
        }
    }

    func testIdsAndTextsAreBoundNeverSpliced() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        let id = "x'); DROP TABLE swaps; --"
        let record = SwapRecord(id: id, role: .provider, swapIndex: UInt32.max, keyScheme: .current, peer: "\"quoted\" peer",
                                createdAt: -1, contract: .object(["note": .string("it's \u{1F600} \n fine")]))
        _ = try await store.create(record, firstEvent: "swap_requested'", data: .string("'"), at: 0)
        let stored = try await store.swap(id)
        XCTAssertEqual(stored, record)
        let last = try await store.lastEvent(of: id)
        XCTAssertEqual(last?.kind, "swap_requested'")
        XCTAssertEqual(last?.data, .string("'"))
    }

    func testEventDataThatCouldNotBeReadBackIsRefusedAndNothingIsWritten() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        _ = try await store.create(StoreFixture.record("s", index: 0), firstEvent: "quote_accepted", data: .object([:]), at: 1)
        var deep = JSONValue.null
        for _ in 0..<(StoredJSON.limits.maxDepth + 1) { deep = .array([deep]) }
        do {
            _ = try await store.append("lock_seen", data: deep, isFinal: false, to: "s", at: 2)
            XCTFail("data nested past the read limit was stored")
        } catch {
            guard case .database(let operation, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(operation, "store event data")
        }
        let events = try await store.events(of: "s")
        XCTAssertEqual(events.count, 1)
    }

    func testClosedStoreRefusesCalls() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        await store.close()
        await XCTAssertThrowsStoreError(.database(operation: "prepare", message: "the store is closed")) {
            () async throws(StoreError) in try await store.swap("x")
        }
    }
}

extension SQLiteSwapStore {
    /// Runs UPDATE and DELETE statements against the history tables and returns SQLite's
    /// refusal for each (the triggers' messages).
    fileprivate func tryRewritingHistory() -> [String] {
        var refusals: [String] = []
        for sql: StaticString in ["UPDATE swaps SET contract = '{}'",
                                  "UPDATE swap_events SET kind = 'completed'",
                                  "DELETE FROM swap_events"] {
            do {
                try connection.execute(sql)
            } catch {
                refusals.append(error.description)
            }
        }
        return refusals
    }
}
