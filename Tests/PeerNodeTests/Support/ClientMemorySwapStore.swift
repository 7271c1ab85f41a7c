import PeerNode
import Transport

/// A `SwapStore` in memory, for the client engine's tests until the SQLite store lands:
/// the same rules (contract once, append-only, nothing after a final event, indexes never
/// reused).
actor ClientMemorySwapStore: SwapStore {
    private var records: [String: SwapRecord] = [:]
    private var order: [String] = []
    private var logs: [String: [SwapEvent]] = [:]
    private var nextIndex: UInt32 = 0
    private var values: [String: [UInt8]] = [:]

    func value(forKey key: String) async throws(StoreError) -> [UInt8]? { values[key] }
    func setValue(_ value: [UInt8], forKey key: String) async throws(StoreError) { values[key] = value }
    @discardableResult
    func removeValue(forKey key: String) async throws(StoreError) -> Bool { values.removeValue(forKey: key) != nil }
    func takeNext(forKey key: String, initial: Int64) async throws(StoreError) -> Int64 {
        let current = values[key].flatMap { Int64(String(decoding: $0, as: UTF8.self)) } ?? initial
        values[key] = Array(String(current + 1).utf8)
        return current
    }

    func reserveSwapIndex() async throws(StoreError) -> UInt32 {
        defer { nextIndex += 1 }
        return nextIndex
    }

    func create(_ record: SwapRecord, firstEvent kind: String, data: JSONValue, at: Int64) async throws(StoreError) -> SwapEvent {
        guard records[record.id] == nil else { throw .duplicateSwap(record.id) }
        records[record.id] = record
        order.append(record.id)
        let event = SwapEvent(sequence: 1, kind: kind, data: data, isFinal: false, at: at)
        logs[record.id] = [event]
        return event
    }

    func append(_ kind: String, data: JSONValue, isFinal: Bool, to swapID: String, at: Int64) async throws(StoreError) -> SwapEvent {
        guard var log = logs[swapID] else { throw .unknownSwap(swapID) }
        guard log.last?.isFinal != true else { throw .swapFinished(swapID) }
        let event = SwapEvent(sequence: Int64(log.count + 1), kind: kind, data: data, isFinal: isFinal, at: at)
        log.append(event)
        logs[swapID] = log
        return event
    }

    func reopen(_ kind: String, data: JSONValue, reason: String, to swapID: String, at: Int64) async throws(StoreError) -> SwapEvent {
        guard var log = logs[swapID] else { throw .unknownSwap(swapID) }
        guard !reason.allSatisfy(\.isWhitespace) else { throw .notReopenable(swapID, why: "no reason was given") }
        guard let last = log.last, last.isFinal else { throw .notReopenable(swapID, why: "it has not ended") }
        var members = data.objectValue ?? [:]
        members["reopened"] = .object(["reason": .string(reason), "after": .string(last.kind)])
        let event = SwapEvent(sequence: Int64(log.count + 1), kind: kind, data: .object(members), isFinal: false, at: at)
        log.append(event)
        logs[swapID] = log
        return event
    }

    func swap(_ id: String) async throws(StoreError) -> SwapRecord? { records[id] }

    func events(of swapID: String) async throws(StoreError) -> [SwapEvent] { logs[swapID] ?? [] }

    func lastEvent(of swapID: String) async throws(StoreError) -> SwapEvent? { logs[swapID]?.last }

    func unfinishedSwaps(role: SwapRole?) async throws(StoreError) -> [SwapRecord] {
        order.compactMap { records[$0] }.filter { record in
            (role == nil || record.role == role) && logs[record.id]?.last?.isFinal == false
        }
    }

    func allSwaps(limit: Int) async throws(StoreError) -> [SwapRecord] {
        Array(order.reversed().prefix(limit).compactMap { records[$0] })
    }
}
