import Transport
import XCTest
@testable import PeerNode

/// `append(_:to:)` and `create(_:firstEvent:data:at:values:)`: several writes in one
/// transaction, all or none.
final class StoreBatchAppendTests: XCTestCase {
    private func event(_ kind: String, final isFinal: Bool = false, at: Int64 = 2) -> NewSwapEvent {
        NewSwapEvent(kind: kind, data: .object(["kind": .string(kind)]), isFinal: isFinal, at: at)
    }

    func testABatchIsAppendedInOrderAfterTheLogWithConsecutiveSequences() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        _ = try await store.create(StoreFixture.record("s", index: 0), firstEvent: "quoted", data: .object([:]), at: 1)
        _ = try await store.append("accepted", data: .object([:]), isFinal: false, to: "s", at: 2)
        let written = try await store.append([event("lock_seen", at: 3), event("lock_verified", at: 4),
                                              event("coop_requested", at: 5)], to: "s")
        XCTAssertEqual(written.map(\.sequence), [3, 4, 5])
        XCTAssertEqual(written.map(\.at), [3, 4, 5])
        let events = try await store.events(of: "s")
        XCTAssertEqual(events.map(\.kind), ["quoted", "accepted", "lock_seen", "lock_verified", "coop_requested"])
        XCTAssertEqual(Array(events.suffix(3)), written)
        XCTAssertEqual(events[3].data, .object(["kind": .string("lock_verified")]))
    }

    func testAnEventAfterAFinalOneInTheBatchRefusesTheWholeBatch() async throws {
        let sqlite = try SQLiteSwapStore.openInMemory()
        // Through the protocol, as the engines call it: the store's own transaction, not
        // the protocol's one-by-one default.
        let store: any SwapStore = sqlite
        _ = try await store.create(StoreFixture.record("s", index: 0), firstEvent: "quoted", data: .object([:]), at: 1)
        await XCTAssertThrowsStoreError(.swapFinished("s")) { () async throws(StoreError) in
            _ = try await store.append([self.event("claim_confirmed"), self.event("completed", final: true),
                                        self.event("claim_broadcast")], to: "s")
        }
        await XCTAssertThrowsStoreError(.swapFinished("s")) { () async throws(StoreError) in
            _ = try await sqlite.append([self.event("claim_confirmed"), self.event("completed", final: true),
                                         self.event("claim_broadcast")], to: "s")
        }
        let events = try await store.events(of: "s")
        XCTAssertEqual(events.map(\.kind), ["quoted"], "the two events before the refusal were rolled back with it")
        let after = try await store.append([event("claim_confirmed"), event("completed", final: true)], to: "s")
        XCTAssertEqual(after.map(\.sequence), [2, 3])
    }

    func testABatchAfterAFinalEventOrForAnUnknownSwapIsRefused() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        _ = try await store.create(StoreFixture.record("s", index: 0), firstEvent: "quoted", data: .object([:]), at: 1)
        _ = try await store.append("failed", data: .object([:]), isFinal: true, to: "s", at: 2)
        await XCTAssertThrowsStoreError(.swapFinished("s")) { () async throws(StoreError) in
            _ = try await store.append([self.event("lock_seen")], to: "s")
        }
        await XCTAssertThrowsStoreError(.unknownSwap("nope")) { () async throws(StoreError) in
            _ = try await store.append([self.event("lock_seen")], to: "nope")
        }
        let events = try await store.events(of: "s")
        XCTAssertEqual(events.map(\.kind), ["quoted", "failed"])
    }

    func testAnEmptyBatchWritesNothing() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        _ = try await store.create(StoreFixture.record("s", index: 0), firstEvent: "quoted", data: .object([:]), at: 1)
        let written = try await store.append([], to: "s")
        XCTAssertEqual(written, [])
        let events = try await store.events(of: "s")
        XCTAssertEqual(events.count, 1)
    }

    func testCreateWritesItsValuesInTheRecordsTransaction() async throws {
        let store: any SwapStore = try SQLiteSwapStore.openInMemory()
        _ = try await store.create(StoreFixture.record("s", index: 0), firstEvent: "quoted", data: .object([:]), at: 1,
                                   values: ["client.payment_hash.aa": Array("s".utf8)])
        let stored = try await store.value(forKey: "client.payment_hash.aa")
        XCTAssertEqual(stored, Array("s".utf8))
        // A refused record (its id is taken) leaves its values unwritten too.
        await XCTAssertThrowsStoreError(.duplicateSwap("s")) { () async throws(StoreError) in
            _ = try await store.create(StoreFixture.record("s", index: 1), firstEvent: "quoted", data: .object([:]), at: 2,
                                       values: ["client.payment_hash.bb": Array("s".utf8)])
        }
        let refused = try await store.value(forKey: "client.payment_hash.bb")
        XCTAssertNil(refused)
    }
}
