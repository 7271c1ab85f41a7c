import Transport

/// The latest offer of each provider. Expired offers are never returned; `expireOffers`
/// deletes them.
public protocol OfferCache: Sendable {
    /// Keeps `offer` as its provider's current offer, replacing any older one.
    func cacheOffer(_ offer: CachedOffer) async throws(StoreError)
    /// The provider's offer if it is still valid at `now`.
    func cachedOffer(from provider: Pubky, now: Int64) async throws(StoreError) -> CachedOffer?
    /// Every offer still valid at `now`, ordered by provider.
    func cachedOffers(now: Int64) async throws(StoreError) -> [CachedOffer]
    /// Deletes offers expired at `now`; returns how many.
    @discardableResult
    func expireOffers(now: Int64) async throws(StoreError) -> Int
}
