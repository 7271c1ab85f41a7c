/// Small named values that must survive restarts, such as the wallet's next receive and
/// change address indices. Keys are chosen by code (`wallet.next_receive_index`), not users.
public protocol KeyValueStore: Sendable {
    func value(forKey key: String) async throws(StoreError) -> [UInt8]?
    func setValue(_ value: [UInt8], forKey key: String) async throws(StoreError)
    @discardableResult
    func removeValue(forKey key: String) async throws(StoreError) -> Bool
    /// Reads an integer counter (starting at `initial` when unset), stores it plus one and
    /// returns the value read, in one transaction: a fresh address index can never be
    /// handed out twice, even across a crash.
    func takeNext(forKey key: String, initial: Int64) async throws(StoreError) -> Int64
}
