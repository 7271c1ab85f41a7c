import Transport
import XCTest
@testable import PeerNode

final class StoreOfferCacheTests: XCTestCase {
    private func offer(_ id: String, validUntil: Int64) -> JSONValue {
        .object(["type": .string("Offer"), "offer_id": .string(id), "fee_ppm": .integer(1500),
                 "valid_until_unix": .integer(validUntil), "signature": .string("ab")])
    }

    func testOffersRoundTripAndALaterOfferReplacesTheOlder() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        let first = CachedOffer(provider: StoreFixture.pubky(4), offer: offer("o1", validUntil: 200), validUntil: 200, fetchedAt: 100)
        try await store.cacheOffer(first)
        let read = try await store.cachedOffer(from: StoreFixture.pubky(4), now: 150)
        XCTAssertEqual(read, first)

        let second = CachedOffer(provider: StoreFixture.pubky(4), offer: offer("o2", validUntil: 400), validUntil: 400, fetchedAt: 300)
        try await store.cacheOffer(second)
        let replaced = try await store.cachedOffers(now: 300)
        XCTAssertEqual(replaced, [second])
    }

    func testExpiredOffersAreNotReturnedAndExpireDeletesThem() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        let short = CachedOffer(provider: StoreFixture.pubky(4), offer: offer("a", validUntil: 200), validUntil: 200, fetchedAt: 100)
        let long = CachedOffer(provider: StoreFixture.pubky(5), offer: offer("b", validUntil: 500), validUntil: 500, fetchedAt: 100)
        try await store.cacheOffer(short)
        try await store.cacheOffer(long)

        let atExpiry = try await store.cachedOffer(from: StoreFixture.pubky(4), now: 200)
        XCTAssertEqual(atExpiry, short, "valid through its valid_until second")
        let after = try await store.cachedOffer(from: StoreFixture.pubky(4), now: 201)
        XCTAssertNil(after)
        let valid = try await store.cachedOffers(now: 201)
        XCTAssertEqual(valid, [long])

        let none = try await store.expireOffers(now: 200)
        XCTAssertEqual(none, 0)
        let removed = try await store.expireOffers(now: 201)
        XCTAssertEqual(removed, 1)
        let stillThere = try await store.cachedOffers(now: 0)
        XCTAssertEqual(stillThere, [long])
    }
}
