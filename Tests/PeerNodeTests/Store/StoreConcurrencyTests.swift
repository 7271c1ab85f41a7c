import Transport
import XCTest
@testable import PeerNode

final class StoreConcurrencyTests: XCTestCase {
    func testConcurrentAppendsToDifferentSwapsAllLand() async throws {
        let path = try StoreFixture.directory(for: self) + "/node.sqlite"
        let store = try SQLiteSwapStore.open(path: path)
        let ids = (0..<50).map { "swap-\($0)" }
        for (i, id) in ids.enumerated() {
            _ = try await store.create(StoreFixture.record(id, index: UInt32(i)), firstEvent: "quote_accepted", data: .object([:]), at: 1)
        }
        let sequences = try await withThrowingTaskGroup(of: (String, Int64).self) { group in
            for id in ids {
                group.addTask {
                    let event = try await store.append("pay_started", data: .object(["id": .string(id)]), isFinal: false, to: id, at: 2)
                    return (id, event.sequence)
                }
            }
            var sequences: [String: Int64] = [:]
            for try await (id, sequence) in group { sequences[id] = sequence }
            return sequences
        }
        XCTAssertEqual(sequences.count, 50)
        XCTAssertTrue(sequences.values.allSatisfy { $0 == 2 })
        for id in ids {
            let events = try await store.events(of: id)
            XCTAssertEqual(events.map(\.sequence), [1, 2])
            XCTAssertEqual(events.last?.data, .object(["id": .string(id)]))
        }
    }

    func testConcurrentAppendsToOneSwapGetDistinctConsecutiveSequences() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        _ = try await store.create(StoreFixture.record("s", index: 0), firstEvent: "quote_accepted", data: .object([:]), at: 1)
        let returned = try await withThrowingTaskGroup(of: Int64.self) { group in
            for n in 0..<50 {
                group.addTask {
                    try await store.append("rebroadcast", data: .object(["n": .integer(n)]), isFinal: false, to: "s", at: 2).sequence
                }
            }
            var returned: [Int64] = []
            for try await sequence in group { returned.append(sequence) }
            return returned
        }
        XCTAssertEqual(returned.sorted(), Array(2...51))
        let events = try await store.events(of: "s")
        XCTAssertEqual(events.map(\.sequence), Array(1...51))
        XCTAssertEqual(Set(events.dropFirst().compactMap { $0.data["n"]?.int64Value }), Set(0..<50))
    }

    /// Two stores on one file behave like two processes: the write lock taken at BEGIN
    /// IMMEDIATE keeps their sequences and swap indices apart.
    func testTwoStoresOnOneFileNeverShareASequenceOrAnIndex() async throws {
        let path = try StoreFixture.directory(for: self) + "/node.sqlite"
        let a = try SQLiteSwapStore.open(path: path)
        let b = try SQLiteSwapStore.open(path: path)
        _ = try await a.create(StoreFixture.record("s", index: 0), firstEvent: "quote_accepted", data: .object([:]), at: 1)
        let (sequences, indices) = try await withThrowingTaskGroup(of: (Int64, UInt32).self) { group in
            for n in 0..<40 {
                let store = n.isMultiple(of: 2) ? a : b
                group.addTask {
                    let event = try await store.append("tick", data: .object([:]), isFinal: false, to: "s", at: 2)
                    return (event.sequence, try await store.reserveSwapIndex())
                }
            }
            var sequences: [Int64] = []
            var indices: [UInt32] = []
            for try await (sequence, index) in group {
                sequences.append(sequence)
                indices.append(index)
            }
            return (sequences, indices)
        }
        XCTAssertEqual(sequences.sorted(), Array(2...41))
        XCTAssertEqual(indices.sorted(), Array(1...40))
    }
}
