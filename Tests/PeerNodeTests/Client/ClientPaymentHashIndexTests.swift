import HTLC
@testable import PeerNode
import XCTest

/// Audit H-5's check by index: the client swaps on record are indexed once, then every
/// swap the engine or recovery records adds its hash; a check is one lookup.
final class ClientPaymentHashIndexTests: XCTestCase {
    func testTheIndexIsBuiltOnceFromTheRecordsAndFollowsNewSwaps() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        let keys = try SwapKeyChain(seed: [UInt8](repeating: 0x31, count: 32), network: .regtest)
        for index in 0..<3 {
            let record = SwapRecord(id: "c\(index)", role: .client, swapIndex: UInt32(index), keyScheme: .current,
                                    peer: "p", createdAt: 1, contract: .object([:]))
            _ = try await store.create(record, firstEvent: "quoted", data: .object([:]), at: 1)
        }
        let provider = SwapRecord(id: "p9", role: .provider, swapIndex: 9, keyScheme: .current, peer: "c", createdAt: 1,
                                  contract: .object([:]))
        _ = try await store.create(provider, firstEvent: "invoice_created", data: .object([:]), at: 1)
        let hash1 = try keys.paymentHash(index: 1, scheme: .current)
        let found = try await ClientPaymentHashIndex.swap(with: hash1, store: store, keyChain: keys)
        XCTAssertEqual(found, "c1")
        let built = try await store.value(forKey: ClientPaymentHashIndex.index.builtKey)
        XCTAssertNotNil(built, "built once, then marked")
        let providerHash = try await ClientPaymentHashIndex.swap(with: try keys.paymentHash(index: 9, scheme: .current),
                                                                 store: store, keyChain: keys)
        XCTAssertNil(providerHash, "a provider swap's hash is the client's, not ours")
        let fresh = try keys.paymentHash(index: 4, scheme: .current)
        let before = try await ClientPaymentHashIndex.swap(with: fresh, store: store, keyChain: keys)
        XCTAssertNil(before)
        try await ClientPaymentHashIndex.index.record(fresh, swapID: "c4", store: store)
        let after = try await ClientPaymentHashIndex.swap(with: fresh, store: store, keyChain: keys)
        XCTAssertEqual(after, "c4")
    }
}
