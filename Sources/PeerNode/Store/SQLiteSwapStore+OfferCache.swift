import Transport

extension SQLiteSwapStore: OfferCache {
    public func cacheOffer(_ offer: CachedOffer) throws(StoreError) {
        let text = try StoredJSON.encode(offer.offer, "offer")
        try connection.withStatement("""
            INSERT INTO offer_cache (provider, offer, valid_until, fetched_at) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (provider) DO UPDATE SET
                offer = excluded.offer, valid_until = excluded.valid_until, fetched_at = excluded.fetched_at
            """) { statement throws(StoreError) in
            try statement.bind(offer.provider.z32, at: 1)
            try statement.bind(text, at: 2)
            try statement.bind(offer.validUntil, at: 3)
            try statement.bind(offer.fetchedAt, at: 4)
            try statement.run()
        }
    }

    public func cachedOffer(from provider: Pubky, now: Int64) throws(StoreError) -> CachedOffer? {
        try connection.withStatement("""
            SELECT provider, offer, valid_until, fetched_at FROM offer_cache
            WHERE provider = ?1 AND valid_until >= ?2
            """) { statement throws(StoreError) -> CachedOffer? in
            try statement.bind(provider.z32, at: 1)
            try statement.bind(now, at: 2)
            return try statement.step() ? Self.cachedOffer(statement) : nil
        }
    }

    public func cachedOffers(now: Int64) throws(StoreError) -> [CachedOffer] {
        try connection.withStatement("""
            SELECT provider, offer, valid_until, fetched_at FROM offer_cache
            WHERE valid_until >= ?1 ORDER BY provider
            """) { statement throws(StoreError) -> [CachedOffer] in
            try statement.bind(now, at: 1)
            var offers: [CachedOffer] = []
            while try statement.step() {
                offers.append(try Self.cachedOffer(statement))
            }
            return offers
        }
    }

    @discardableResult
    public func expireOffers(now: Int64) throws(StoreError) -> Int {
        try connection.withStatement("DELETE FROM offer_cache WHERE valid_until < ?1") { statement throws(StoreError) -> Int in
            try statement.bind(now, at: 1)
            try statement.run()
            return Int(statement.changes)
        }
    }

    /// Columns: provider, offer, valid_until, fetched_at.
    private static func cachedOffer(_ row: SQLiteStatement) throws(StoreError) -> CachedOffer {
        guard let provider = Pubky(row.string(0)) else {
            throw .corrupt("a cached offer has an invalid provider pubky")
        }
        return CachedOffer(provider: provider, offer: try StoredJSON.decode(row.string(1), "a cached offer"),
                           validUntil: row.int64(2), fetchedAt: row.int64(3))
    }
}
