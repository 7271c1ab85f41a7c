import HTLC
import Transport

/// The client's payment hashes on record, kept in the store's key-value table (audit H-5:
/// a payment hash on record is never offered again). Each client swap's hash is written
/// with its record by the engine (`pay`: `entry`, in the record's transaction) and before
/// it by recovery (`SwapRecreator`); records
/// older than the index are added once, on first use (the `builtKey` mark), so a check
/// costs one lookup instead of a key derivation per stored swap.
enum ClientPaymentHashIndex {
    static let index = SwapHashIndex(prefix: "client.payment_hash.", builtKey: "client.payment_hash_index.v1")

    /// The id of the client swap on record with `paymentHash`, if any.
    static func swap(with paymentHash: [UInt8], store: any SwapStore, keyChain: SwapKeyChain) async throws(ClientEngineError)
        -> String? {
        do {
            return try await index.swapID(for: paymentHash, store: store) { try await build(store: store, keyChain: keyChain) }
        } catch let error as ClientEngineError {
            throw error
        } catch {
            throw .store("\(error)")
        }
    }

    /// Adds every stored client swap.
    private static func build(store: any SwapStore, keyChain: SwapKeyChain) async throws {
        for stored in try await store.allSwaps(limit: Int.max) where stored.role == .client {
            let hash: [UInt8]
            do { hash = try keyChain.paymentHash(index: stored.swapIndex, scheme: stored.keyScheme) } catch {
                throw ClientEngineError.corruptRecord("swap index \(stored.swapIndex): \(error)")
            }
            try await index.record(hash, swapID: stored.id, store: store)
        }
    }
}
