/// A store that hands its key-value calls to another (a wrapper that changes only the swap
/// calls, such as the crash-point store).
public protocol ForwardingKeyValueStore: KeyValueStore {
    var keyValueBase: any KeyValueStore { get }
}

extension ForwardingKeyValueStore {
    public func value(forKey key: String) async throws(StoreError) -> [UInt8]? { try await keyValueBase.value(forKey: key) }

    public func setValue(_ value: [UInt8], forKey key: String) async throws(StoreError) {
        try await keyValueBase.setValue(value, forKey: key)
    }

    @discardableResult
    public func removeValue(forKey key: String) async throws(StoreError) -> Bool {
        try await keyValueBase.removeValue(forKey: key)
    }

    public func takeNext(forKey key: String, initial: Int64) async throws(StoreError) -> Int64 {
        try await keyValueBase.takeNext(forKey: key, initial: initial)
    }
}
