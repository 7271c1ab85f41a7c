import Transport

/// A provider's signed offer as received (its wire JSON, so the signature can be checked
/// again), kept to show `offers` and pick a provider without probing every contact.
public struct CachedOffer: Sendable, Equatable {
    public let provider: Pubky
    /// The `Offer` message's JSON object, exactly as the provider signed it.
    public let offer: JSONValue
    /// The offer's `valid_until_unix`: usable while `now <= validUntil`.
    public let validUntil: Int64
    /// Unix seconds when it was received.
    public let fetchedAt: Int64

    public init(provider: Pubky, offer: JSONValue, validUntil: Int64, fetchedAt: Int64) {
        self.provider = provider
        self.offer = offer
        self.validUntil = validUntil
        self.fetchedAt = fetchedAt
    }

    public func isValid(at now: Int64) -> Bool { now <= validUntil }
}
