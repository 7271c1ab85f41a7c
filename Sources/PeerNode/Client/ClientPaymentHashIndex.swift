import HTLC
import Transport

/// The client's payment hashes on record, kept in the store's key-value table (audit H-5:
/// a payment hash on record is never offered again). Each client swap's hash is written
/// with its record by the engine (`pay`: `entry`, in the record's transaction) and before
/// it by recovery (`SwapRecreator`); records
/// older than the index are added once, on first use (the `builtKey` mark), so a check
/// costs one lookup instead of a key derivation per stored swap.
enum ClientPaymentHashIndex {
    static let builtKey = "client.payment_hash_index.v1"

    static func key(_ paymentHash: [UInt8]) -> String { "client.payment_hash." + paymentHash.hex }

    /// The id of the client swap on record with `paymentHash`, if any.
    static func swap(with paymentHash: [UInt8], store: any SwapStore, keyChain: SwapKeyChain) async throws(ClientEngineError)
        -> String? {
        do {
            if try await store.value(forKey: builtKey) == nil { try await build(store: store, keyChain: keyChain) }
            return try await store.value(forKey: key(paymentHash)).map { String(decoding: $0, as: UTF8.self) }
        } catch let error as ClientEngineError {
            throw error
        } catch {
            throw .store("\(error)")
        }
    }

    /// The index's entry for swap `id`, to write with its record (`SwapStore.create`'s values).
    static func entry(_ paymentHash: [UInt8], swapID id: String) -> [String: [UInt8]] {
        [key(paymentHash): Array(id.utf8)]
    }

    /// Records `paymentHash` as swap `id`'s (before the swap's record is written).
    static func record(_ paymentHash: [UInt8], swapID id: String, store: any SwapStore) async throws(StoreError) {
        for (key, value) in entry(paymentHash, swapID: id) { try await store.setValue(value, forKey: key) }
    }

    /// Adds every stored client swap, then the mark.
    private static func build(store: any SwapStore, keyChain: SwapKeyChain) async throws {
        for stored in try await store.allSwaps(limit: Int.max) where stored.role == .client {
            let hash: [UInt8]
            do { hash = try keyChain.paymentHash(index: stored.swapIndex, scheme: stored.keyScheme) } catch {
                throw ClientEngineError.corruptRecord("swap index \(stored.swapIndex): \(error)")
            }
            try await record(hash, swapID: stored.id, store: store)
        }
        try await store.setValue([1], forKey: builtKey)
    }
}
