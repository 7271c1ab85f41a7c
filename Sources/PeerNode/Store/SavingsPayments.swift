import Transport

/// Payments sent from on-chain savings (`pay` when savings cover it, `pay --from savings`):
/// no swap records them, so `swaps` would not show where that money went (issue 14). Each
/// is one key-value entry, `payments.savings.<n>`, numbered by a counter taken in the same
/// store (`takeNext`), so two payments at once never share a number.
public enum SavingsPayments {
    static let counterKey = "payments.savings.next"

    static func key(_ index: Int64) -> String { "payments.savings.\(index)" }

    /// Records one payment (a JSON object: txid, contact, destination, amount_sat, ...).
    public static func record(_ payment: JSONValue, in store: SQLiteSwapStore) async throws(StoreError) {
        let index = try await store.takeNext(forKey: counterKey, initial: 0)
        try await store.setValue(payment.canonicalBytes, forKey: key(index))
    }

    /// The newest `limit` payments, newest first.
    public static func newest(_ limit: Int, in store: SQLiteSwapStore) async throws(StoreError) -> [JSONValue] {
        guard let stored = try await store.value(forKey: counterKey),
              let next = SQLiteSwapStore.decodeCounter(stored), next > 0 else { return [] }
        var out: [JSONValue] = []
        var index = next - 1
        while index >= 0 && out.count < limit {
            if let bytes = try await store.value(forKey: key(index)) {
                guard let payment = try? JSONParser.parse(bytes, limits: JSONParser.Limits(maxLength: 1 << 16)) else {
                    throw .corrupt("payment \(index) from savings is not JSON")
                }
                out.append(payment)
            }
            index -= 1
        }
        return out
    }
}
