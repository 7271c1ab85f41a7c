import PeerNode
import Transport

/// An in-memory `SwapStore` for engine tests, keeping the protocol's rules (contract
/// written once, append-only log, nothing after a final event, indexes never reused).
/// Not durable, so it stands in for the SQLite store only where a test keeps it alive
/// across a simulated restart (a new engine over the same object).
actor MemorySwapStore: SwapStore {
    private var nextIndex: UInt32 = 0
    private var records: [String: SwapRecord] = [:]
    private var order: [String] = []
    private var logs: [String: [SwapEvent]] = [:]
    /// Every append, in order, for tests that check what was recorded.
    private(set) var appended: [(swapID: String, kind: String)] = []

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
        appended.append((record.id, kind))
        return event
    }

    func append(_ kind: String, data: JSONValue, isFinal: Bool, to swapID: String, at: Int64) async throws(StoreError) -> SwapEvent {
        guard var log = logs[swapID] else { throw .unknownSwap(swapID) }
        guard log.last?.isFinal != true else { throw .swapFinished(swapID) }
        let event = SwapEvent(sequence: Int64(log.count + 1), kind: kind, data: data, isFinal: isFinal, at: at)
        log.append(event)
        logs[swapID] = log
        appended.append((swapID, kind))
        return event
    }

    func swap(_ id: String) async throws(StoreError) -> SwapRecord? { records[id] }

    func events(of swapID: String) async throws(StoreError) -> [SwapEvent] { logs[swapID] ?? [] }

    func lastEvent(of swapID: String) async throws(StoreError) -> SwapEvent? { logs[swapID]?.last }

    func unfinishedSwaps(role: SwapRole?) async throws(StoreError) -> [SwapRecord] {
        order.compactMap { records[$0] }.filter { record in
            (role == nil || record.role == role) && logs[record.id]?.last?.isFinal != true
        }
    }

    func allSwaps(limit: Int) async throws(StoreError) -> [SwapRecord] {
        Array(order.reversed().prefix(limit).compactMap { records[$0] })
    }

    /// The kinds of a swap's events, oldest first.
    func kinds(of swapID: String) -> [String] { logs[swapID]?.map(\.kind) ?? [] }
}
