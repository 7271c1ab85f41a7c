import PeerNode

/// A test store wrapped around `base` that changes only how writes behave: every read
/// passes straight through to `base`.
protocol ForwardingSwapStore: SwapStore {
    var base: any SwapStore { get }
}

extension ForwardingSwapStore {
    func swap(_ id: String) async throws(StoreError) -> SwapRecord? { try await base.swap(id) }
    func events(of swapID: String) async throws(StoreError) -> [SwapEvent] { try await base.events(of: swapID) }
    func lastEvent(of swapID: String) async throws(StoreError) -> SwapEvent? { try await base.lastEvent(of: swapID) }
    func unfinishedSwaps(role: SwapRole?) async throws(StoreError) -> [SwapRecord] { try await base.unfinishedSwaps(role: role) }
    func allSwaps(limit: Int) async throws(StoreError) -> [SwapRecord] { try await base.allSwaps(limit: limit) }
    func value(forKey key: String) async throws(StoreError) -> [UInt8]? { try await base.value(forKey: key) }
    func setValue(_ value: [UInt8], forKey key: String) async throws(StoreError) { try await base.setValue(value, forKey: key) }
    @discardableResult
    func removeValue(forKey key: String) async throws(StoreError) -> Bool { try await base.removeValue(forKey: key) }
    func takeNext(forKey key: String, initial: Int64) async throws(StoreError) -> Int64 {
        try await base.takeNext(forKey: key, initial: initial)
    }
}
