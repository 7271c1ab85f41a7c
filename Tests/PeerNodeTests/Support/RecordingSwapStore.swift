import PeerNode
import Transport

/// Wraps a store and remembers, per swap, the kinds each write (one transaction) carried,
/// and the keys written with a record: how an engine groups its steps.
actor RecordingSwapStore: ForwardingSwapStore {
    nonisolated let base: any SwapStore
    private var written: [String: [[String]]] = [:]

    init(_ base: any SwapStore) {
        self.base = base
    }

    /// The kinds of each write to swap `id`, in the order the writes returned.
    func writes(of id: String) -> [[String]] { written[id] ?? [] }

    func reserveSwapIndex() async throws(StoreError) -> UInt32 { try await base.reserveSwapIndex() }

    func create(_ record: SwapRecord, firstEvent kind: String, data: JSONValue, at: Int64) async throws(StoreError) -> SwapEvent {
        let event = try await base.create(record, firstEvent: kind, data: data, at: at)
        written[record.id, default: []].append([kind])
        return event
    }

    func create(_ record: SwapRecord, firstEvent kind: String, data: JSONValue, at: Int64,
                values: [String: [UInt8]]) async throws(StoreError) -> SwapEvent {
        let event = try await base.create(record, firstEvent: kind, data: data, at: at, values: values)
        written[record.id, default: []].append([kind] + values.keys.sorted())
        return event
    }

    func setValue(_ value: [UInt8], forKey key: String) async throws(StoreError) {
        try await base.setValue(value, forKey: key)
        valuesSetAlone.append(key)
    }

    /// Keys written by `setValue`, each in a transaction of its own.
    private(set) var valuesSetAlone: [String] = []

    func append(_ kind: String, data: JSONValue, isFinal: Bool, to swapID: String, at: Int64) async throws(StoreError) -> SwapEvent {
        let event = try await base.append(kind, data: data, isFinal: isFinal, to: swapID, at: at)
        written[swapID, default: []].append([kind])
        return event
    }

    func append(_ events: [NewSwapEvent], to swapID: String) async throws(StoreError) -> [SwapEvent] {
        let appended = try await base.append(events, to: swapID)
        written[swapID, default: []].append(events.map(\.kind))
        return appended
    }

    func reopen(_ kind: String, data: JSONValue, reason: String, to swapID: String, at: Int64) async throws(StoreError) -> SwapEvent {
        let event = try await base.reopen(kind, data: data, reason: reason, to: swapID, at: at)
        written[swapID, default: []].append([kind])
        return event
    }
}
