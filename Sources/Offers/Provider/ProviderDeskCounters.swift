/// What a `ProviderDesk` answered since it started, for the node's `/metrics`: offers
/// (each probe of this provider is one OfferRequest) and quotes, issued or refused.
/// Process counters: they start at 0 with the daemon, which Prometheus reads as a reset.
public struct ProviderDeskCounters: Sendable, Equatable {
    public var offersAnswered = 0
    public var offersRefused = 0
    public var quotesIssued = 0
    public var quotesRefused = 0

    public init() {}
}
