import Transport

/// An index in the store's key-value table from a payment hash to the id of the swap that
/// has it: one key per hash (`prefix` + the hash in hex), written with the swap's record
/// (`entry`, in `SwapStore.create`'s values) or on its own (`record`). Records older than
/// an index are added once, on its first use, and `builtKey` marks that done.
struct SwapHashIndex: Sendable {
    let prefix: String
    let builtKey: String

    func key(_ paymentHash: [UInt8]) -> String { prefix + paymentHash.hex }

    func entry(_ paymentHash: [UInt8], swapID id: String) -> [String: [UInt8]] {
        [key(paymentHash): Array(id.utf8)]
    }

    func record(_ paymentHash: [UInt8], swapID id: String, store: any KeyValueStore) async throws(StoreError) {
        try await store.setValue(Array(id.utf8), forKey: key(paymentHash))
    }

    /// The swap id on record for `paymentHash`, after `build` has added the older records
    /// (once: it runs only while `builtKey` is missing, and the mark is set after it).
    func swapID(for paymentHash: [UInt8], store: any KeyValueStore,
                build: () async throws -> Void) async throws -> String? {
        if try await store.value(forKey: builtKey) == nil {
            try await build()
            try await store.setValue([1], forKey: builtKey)
        }
        return try await store.value(forKey: key(paymentHash)).map { String(decoding: $0, as: UTF8.self) }
    }
}
