/// Amounts kept beside the event log (a fee no event carries: a routing fee, a
/// withdrawal's or a child's fee), as decimal text, which the accounting reads back.
extension KeyValueStore {
    /// The amount stored under `key`; nil when none was. A value that is not a
    /// non-negative integer is `corrupt`, named by `what` ("the routing fee recorded for
    /// swap …"), so a report never adds a guess.
    func amount(forKey key: String, what: String) async throws(StoreError) -> Int64? {
        guard let bytes = try await value(forKey: key) else { return nil }
        guard let amount = Int64(String(decoding: bytes, as: UTF8.self)), amount >= 0 else {
            throw .corrupt("\(what) is not a number")
        }
        return amount
    }

    func setAmount(_ amount: Int64, forKey key: String) async throws(StoreError) {
        try await setValue(Array(String(amount).utf8), forKey: key)
    }
}
