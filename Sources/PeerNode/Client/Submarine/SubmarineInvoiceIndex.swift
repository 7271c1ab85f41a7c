import Offers
import Transport

/// The payment hashes submarine client swaps of this node were made for, in the store's
/// key-value table: an invoice whose hash a swap may have locked for is never locked for
/// again. Once such an invoice is paid its preimage is known beyond the payee (the provider
/// that paid it, every node on its route), and any of them could claim a second lock on
/// the same hash without paying. Each swap's entry is written with its record and by
/// recovery; older records are added on first use (`SwapHashIndex`).
enum SubmarineInvoiceIndex {
    static let index = SwapHashIndex(prefix: "client.submarine_invoice.", builtKey: "client.submarine_invoice_index.v1")

    /// The swap on record for `paymentHash` that may have locked for it (any but one that
    /// ended `abandoned`, before anything was locked), if any.
    static func lockingSwap(for paymentHash: [UInt8], store: any SwapStore) async throws(StoreError) -> String? {
        let id: String?
        do {
            id = try await index.swapID(for: paymentHash, store: store) { try await build(store: store) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw .corrupt("\(error)")
        }
        guard let id else { return nil }
        return try await mayHaveLocked(id, store: store) ? id : nil
    }

    /// Whether swap `id` may have locked: every state but `abandoned` (ended before a lock
    /// was recorded, or its funding's inputs finally spent elsewhere). A swap still before
    /// its lock counts: it is about to lock.
    private static func mayHaveLocked(_ id: String, store: any SwapStore) async throws(StoreError) -> Bool {
        guard let last = try await store.lastEvent(of: id) else { return false }
        return last.kind != SubmarineClientPhase.abandoned.rawValue
    }

    /// Adds every stored submarine client swap that may have locked.
    private static func build(store: any SwapStore) async throws(StoreError) {
        for stored in try await store.allSwaps(limit: Int.max)
        where stored.role == .client && SubmarineClientRecord.isSubmarine(stored.contract) {
            guard let hash = stored.contract["payment_hash"]?.stringValue.flatMap({ [UInt8](hex: $0) }), hash.count == 32 else {
                throw .corrupt("submarine swap \(stored.id) has no payment hash in its record")
            }
            if try await mayHaveLocked(stored.id, store: store) { try await index.record(hash, swapID: stored.id, store: store) }
        }
    }
}
