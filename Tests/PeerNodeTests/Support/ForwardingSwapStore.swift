import PeerNode

/// A test store wrapped around `base` that changes only how writes behave: every read
/// passes straight through to `base`.
protocol ForwardingSwapStore: SwapStore, ForwardingKeyValueStore {
    var base: any SwapStore { get }
}

extension ForwardingSwapStore {
    func swap(_ id: String) async throws(StoreError) -> SwapRecord? { try await base.swap(id) }
    func events(of swapID: String) async throws(StoreError) -> [SwapEvent] { try await base.events(of: swapID) }
    func lastEvent(of swapID: String) async throws(StoreError) -> SwapEvent? { try await base.lastEvent(of: swapID) }
    func unfinishedSwaps(role: SwapRole?) async throws(StoreError) -> [SwapRecord] { try await base.unfinishedSwaps(role: role) }
    func allSwaps(limit: Int) async throws(StoreError) -> [SwapRecord] { try await base.allSwaps(limit: limit) }
    var keyValueBase: any KeyValueStore { base }
}
