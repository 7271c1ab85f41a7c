import XCTest
@testable import PeerNode

final class StoreKeyValueTests: XCTestCase {
    func testValuesRoundTripOverwriteAndRemove() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        let missing = try await store.value(forKey: "wallet.birthday")
        XCTAssertNil(missing)
        try await store.setValue([0, 1, 255], forKey: "wallet.birthday")
        try await store.setValue([], forKey: "empty")
        let stored = try await store.value(forKey: "wallet.birthday")
        XCTAssertEqual(stored, [0, 1, 255])
        let empty = try await store.value(forKey: "empty")
        XCTAssertEqual(empty, [], "an empty value is stored, not absent")

        try await store.setValue([7], forKey: "wallet.birthday")
        let overwritten = try await store.value(forKey: "wallet.birthday")
        XCTAssertEqual(overwritten, [7])
        let removed = try await store.removeValue(forKey: "wallet.birthday")
        XCTAssertTrue(removed)
        let gone = try await store.value(forKey: "wallet.birthday")
        XCTAssertNil(gone)
    }

    /// A fee kept beside the event log reads back as written; a value that is no amount
    /// (a negative one, text) is an error naming what it was, never a guess or nil: the
    /// provider's submarine routing fee once read such a value as "not recorded".
    func testAmountsRoundTripAndAValueThatIsNoAmountIsCorrupt() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        let missing = try await store.amount(forKey: "provider.lock_child_fee_sat.s1", what: "the child fee")
        XCTAssertNil(missing)
        try await store.setAmount(1_234, forKey: "provider.lock_child_fee_sat.s1")
        let stored = try await store.amount(forKey: "provider.lock_child_fee_sat.s1", what: "the child fee")
        XCTAssertEqual(stored, 1_234)
        for bad in ["-5", "12 sat", ""] {
            try await store.setValue(Array(bad.utf8), forKey: "provider.lock_child_fee_sat.s1")
            do {
                let read = try await store.amount(forKey: "provider.lock_child_fee_sat.s1", what: "the child fee")
                XCTFail("\(bad.debugDescription) read as \(String(describing: read))")
            } catch {
                XCTAssertEqual(error, .corrupt("the child fee is not a number"))
            }
        }
        try await store.setValue(Array("x".utf8), forKey: "provider.submarine_routing_fee_msat.s2")
        do {
            _ = try await SubmarineProviderEngine.recordedRoutingFee("s2", in: store)
            XCTFail("a routing fee that is no number read as a fee or as none")
        } catch {
            XCTAssertEqual(error, .corrupt("the routing fee recorded for swap s2 is not a number"))
        }
    }

    func testCountersHandOutEachValueOnceAcrossReopen() async throws {
        let path = try StoreFixture.directory(for: self) + "/node.sqlite"
        let store = try SQLiteSwapStore.open(path: path)
        let first = try await store.takeNext(forKey: "wallet.next_receive_index", initial: 0)
        let second = try await store.takeNext(forKey: "wallet.next_receive_index", initial: 0)
        XCTAssertEqual([first, second], [0, 1])
        let bytes = try await store.value(forKey: "wallet.next_receive_index")
        XCTAssertEqual(bytes, [0, 0, 0, 0, 0, 0, 0, 2])
        await store.close()

        let reopened = try SQLiteSwapStore.open(path: path)
        let third = try await reopened.takeNext(forKey: "wallet.next_receive_index", initial: 0)
        XCTAssertEqual(third, 2)
        let other = try await reopened.takeNext(forKey: "wallet.next_change_index", initial: 100)
        XCTAssertEqual(other, 100)
    }

    func testACounterThatIsNotEightBytesIsReportedAndLeftUnchanged() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        try await store.setValue([1, 2], forKey: "n")
        await XCTAssertThrowsStoreError(.corrupt("the counter n is not an 8-byte integer")) {
            () async throws(StoreError) in try await store.takeNext(forKey: "n", initial: 0)
        }
        let value = try await store.value(forKey: "n")
        XCTAssertEqual(value, [1, 2])
    }
}
