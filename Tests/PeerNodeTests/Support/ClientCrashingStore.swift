import PeerNode
import Transport

/// Wraps a store so that one append of a given kind reaches the store and then fails, as
/// if the node died right after the write and before the act it announces. Everything
/// else passes through.
actor ClientCrashingStore: ForwardingSwapStore {
    nonisolated let base: any SwapStore
    private var crashKind: String?

    init(_ base: any SwapStore, crashAfter kind: String) {
        self.base = base
        crashKind = kind
    }

    func reserveSwapIndex() async throws(StoreError) -> UInt32 { try await base.reserveSwapIndex() }

    func create(_ record: SwapRecord, firstEvent kind: String, data: JSONValue, at: Int64) async throws(StoreError) -> SwapEvent {
        try await base.create(record, firstEvent: kind, data: data, at: at)
    }

    func reopen(_ kind: String, data: JSONValue, reason: String, to swapID: String, at: Int64) async throws(StoreError) -> SwapEvent {
        try await base.reopen(kind, data: data, reason: reason, to: swapID, at: at)
    }

    func append(_ kind: String, data: JSONValue, isFinal: Bool, to swapID: String, at: Int64) async throws(StoreError) -> SwapEvent {
        let event = try await base.append(kind, data: data, isFinal: isFinal, to: swapID, at: at)
        if kind == crashKind {
            crashKind = nil
            throw .database(operation: "append", message: "simulated crash after writing \(kind)")
        }
        return event
    }
}
