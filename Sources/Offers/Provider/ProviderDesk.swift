import HTLC
import Transport

/// The provider's answers to OfferRequest and QuoteRequest: signed offers from its terms
/// and live state, and signed single-use quotes bound to the asking client. Everything
/// else (SwapRequest onward) belongs to the swap engine, so `answer` returns nil for it.
///
/// An offer keeps its id while the state it was priced from holds and it is unexpired;
/// quotes are priced by the offer the client asked under (a promise holds for its
/// lifetime), with liquidity checked against the state now.
public actor ProviderDesk {
    public nonisolated let identity: NodeIdentity
    public nonisolated let terms: ProviderTerms
    private let builder: OfferBuilder
    private let clock: any UnixClock
    private let state: @Sendable () async -> ProviderState
    private var quotes: QuoteBook
    private var offers: [String: Offer] = [:]
    private var current: (offer: Offer, state: ProviderState)?
    /// Offers and quotes answered since the start (`/metrics`).
    public private(set) var counters = ProviderDeskCounters()

    public init(identity: NodeIdentity, terms: ProviderTerms, clock: any UnixClock,
                quoteCapacity: Int = QuoteBook.defaultCapacity,
                state: @escaping @Sendable () async -> ProviderState) {
        self.identity = identity
        self.terms = terms
        builder = OfferBuilder(terms: terms, provider: identity.pubky)
        self.clock = clock
        self.state = state
        quotes = QuoteBook(clock: clock, lifetimeSeconds: terms.quoteLifetimeSeconds, capacity: quoteCapacity)
    }

    /// Handlers for a `PeerServer` that serves offers and quotes only.
    public nonisolated var handlers: PeerHandlers {
        PeerHandlers(onRequest: { request, peer in
            await self.answer(request, from: peer) ?? Self.reject(request, .unknownMessageType)
        })
    }

    /// The reply to `request` from `peer`, or nil when it is not an offer or quote request.
    public func answer(_ request: [UInt8], from peer: Pubky) async -> [UInt8]? {
        let message: SwapMessage
        do {
            message = try SwapMessage(bytes: request)
        } catch .unknownMessageType {
            return nil
        } catch {
            return Self.reject(request, error)
        }
        switch message {
        case .offerRequest(let offerRequest):
            do {
                let encoded = Signed(signing: try await offer(for: offerRequest), with: identity).encoded
                counters.offersAnswered += 1
                return encoded
            } catch {
                counters.offersRefused += 1
                return Reject(requestID: offerRequest.requestID, error: error).encoded
            }
        case .quoteRequest(let quoteRequest):
            do {
                let encoded = Signed(signing: try await quote(for: quoteRequest, client: peer), with: identity).encoded
                counters.quotesIssued += 1
                return encoded
            } catch {
                counters.quotesRefused += 1
                return Reject(requestID: quoteRequest.requestID, error: error).encoded
            }
        default:
            return nil
        }
    }

    /// Takes quote `quoteID` for `client`'s SwapRequest (single use).
    public func redeem(quoteID: String, client: Pubky) throws(OffersError) -> Quote {
        try quotes.redeem(quoteID: quoteID, client: client)
    }

    public var liveQuotes: Int { quotes.liveCount }

    /// The offer a probe would get now and the live state it is priced from, for the
    /// operator's status page; nothing is cached or counted, so looking changes nothing.
    public func preview() async -> (offer: Offer?, state: ProviderState) {
        let live = await state()
        let offer = try? builder.offer(requestID: "status", offerID: "preview", liquiditySat: live.liquiditySat,
                                       rate: live.feeRate, nowUnix: clock.nowUnix, waitingSat: live.waitingSat,
                                       lightningOutboundSat: live.lightningOutboundSat)
        return (offer, live)
    }

    private func offer(for request: OfferRequest) async throws(OffersError) -> Offer {
        guard ProtocolVersion.supported.contains(request.protocolVersion) else {
            throw .unsupportedVersion(request.protocolVersion)
        }
        if let network = request.network, network != terms.network.rawValue { throw .wrongNetwork }
        let now = clock.nowUnix
        let live = await state()
        pruneOffers(now: now)
        var offer: Offer
        if let current, current.state == live, current.offer.validUntilUnix >= now + terms.offerLifetimeSeconds / 2 {
            offer = current.offer
        } else {
            offer = try builder.offer(requestID: request.requestID, offerID: RandomID.make(),
                                      liquiditySat: live.liquiditySat, rate: live.feeRate, nowUnix: now,
                                      waitingSat: live.waitingSat, lightningOutboundSat: live.lightningOutboundSat)
            offers[offer.offerID] = offer
            current = (offer, live)
        }
        offer.requestID = request.requestID
        return offer
    }

    private func quote(for request: QuoteRequest, client: Pubky) async throws(OffersError) -> Quote {
        pruneOffers(now: clock.nowUnix)
        guard let offer = offers[request.offerID] else { throw .unknownOffer }
        let live = await state()
        let direction = request.swapDirection ?? .lightningToOnchain
        return try quotes.issue(for: request, client: client, offer: offer,
                                lockableSat: builder.available(direction, state: live),
                                waitingSat: direction == .lightningToOnchain ? live.waitingSat : 0)
    }

    private func pruneOffers(now: UInt64) {
        offers = offers.filter { $0.value.validUntilUnix >= now }
    }

    /// A Reject for a request that failed to decode, echoing its request_id when the
    /// envelope has one (the peer layer only hands over requests that do).
    static func reject(_ request: [UInt8], _ error: OffersError) -> [UInt8] {
        let id = (try? MessageEnvelope.parse(request))?.requestID ?? "unknown"
        return Reject(requestID: id, error: error).encoded
    }
}
