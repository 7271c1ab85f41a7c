import Transport

/// Payments that no swap records: a send from on-chain savings and a contact's invoice
/// paid straight from the Lightning balance (`pay` when a direct route fits, issue 16).
/// `swaps` lists them beside the swaps so that it shows where all the money went
/// (issue 14). Each is one key-value entry numbered by a counter taken in the same store
/// (`takeNext`), so two payments at once never share a number. The keys keep the
/// `payments.savings.` prefix they had when only savings paid directly: stores written
/// then are read unchanged.
public enum DirectPayments {
    static let counterKey = "payments.savings.next"

    static func key(_ index: Int64) -> String { "payments.savings.\(index)" }

    /// Records one payment (a JSON object: route, contact, amount_sat, ...); its number.
    @discardableResult
    public static func record(_ payment: JSONValue, in store: SQLiteSwapStore) async throws(StoreError) -> Int64 {
        let index = try await store.takeNext(forKey: counterKey, initial: 0)
        try await store.setValue(payment.canonicalBytes, forKey: key(index))
        return index
    }

    /// Replaces payment `index` (a Lightning payment once its outcome is known).
    public static func update(_ index: Int64, to payment: JSONValue, in store: SQLiteSwapStore) async throws(StoreError) {
        try await store.setValue(payment.canonicalBytes, forKey: key(index))
    }

    /// The newest `limit` payments, newest first, each with its number as `index`.
    public static func newest(_ limit: Int, in store: SQLiteSwapStore) async throws(StoreError) -> [(index: Int64, payment: JSONValue)] {
        guard let stored = try await store.value(forKey: counterKey),
              let next = SQLiteSwapStore.decodeCounter(stored), next > 0 else { return [] }
        var out: [(Int64, JSONValue)] = []
        var index = next - 1
        while index >= 0 && out.count < limit {
            if let bytes = try await store.value(forKey: key(index)) {
                guard let payment = try? JSONParser.parse(bytes, limits: JSONParser.Limits(maxLength: 1 << 16)) else {
                    throw .corrupt("direct payment \(index) is not JSON")
                }
                out.append((index, payment))
            }
            index -= 1
        }
        return out
    }
}
