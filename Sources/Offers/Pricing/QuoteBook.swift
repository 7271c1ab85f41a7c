import Transport

/// The provider's live quotes: each valid for `lifetimeSeconds` (300 by default), single
/// use, redeemable only by the client it was issued to, at most `capacity` (10,000) live
/// and at most `perClientCapacity` (100) for one client, so one identity cannot fill the
/// book and lock every other client out for a quote's lifetime (issue 22).
///
/// A quote is valid through second `valid_until_unix` and expired after it. A redeemed
/// quote stays in the book, marked used, until it expires, so a second use is told apart
/// from an unknown id; after that it is simply unknown. Memory is bounded by `capacity`.
public struct QuoteBook: Sendable {
    public static let defaultLifetimeSeconds: UInt64 = 300
    public static let defaultCapacity = 10_000
    /// Far above what an honest client holds: a `pay` takes one quote, `swap max` a few
    /// rounds of settling.
    public static let defaultPerClientCapacity = 100

    private struct Entry: Sendable {
        let quote: Quote
        let client: Pubky
        var used: Bool
    }

    public let lifetimeSeconds: UInt64
    public let capacity: Int
    public let perClientCapacity: Int
    private let clock: any UnixClock
    private var entries: [String: Entry] = [:]
    /// Live quotes per client, and the expiry of each client's quotes in issue order.
    private var perClient: [Pubky: [UInt64]] = [:]
    /// Ids in issue order; with one lifetime for all, also expiry order, so expired
    /// quotes are dropped from the front.
    private var order: [String] = []
    private var orderStart = 0

    public init(clock: any UnixClock, lifetimeSeconds: UInt64 = defaultLifetimeSeconds, capacity: Int = defaultCapacity,
                perClientCapacity: Int = defaultPerClientCapacity) {
        self.clock = clock
        self.lifetimeSeconds = lifetimeSeconds
        self.capacity = max(1, capacity)
        self.perClientCapacity = max(1, perClientCapacity)
    }

    /// Quotes held now (unexpired, used or not).
    public var liveCount: Int { entries.count }

    /// Prices `request` for `client` under `offer` (the provider's current one), or says
    /// why not. `lockableSat` is what the provider can put up right now in the request's
    /// direction: what its wallet can lock (`ln_to_onchain`), or what its Lightning node
    /// can pay with the routing reserve on top (`onchain_to_ln`, `OfferBuilder.available`).
    public mutating func issue(for request: QuoteRequest, client: Pubky, offer: Offer, lockableSat: Int64,
                               waitingSat: Int64 = 0, quoteID: String = RandomID.make()) throws(OffersError) -> Quote {
        let now = clock.nowUnix
        dropExpired(now: now)
        guard request.offerID == offer.offerID else { throw .unknownOffer }
        guard now <= offer.validUntilUnix else { throw .offerExpired }
        guard let direction = request.swapDirection, let terms = offer.terms(for: direction) else {
            throw .unsupportedDirection
        }
        guard (terms.minAmountSat...max(terms.minAmountSat, terms.maxAmountSat)).contains(request.amountSat),
              terms.maxAmountSat >= terms.minAmountSat else {
            if direction == .onchainToLightning {
                throw .submarineAmountOutOfRange(amount: request.amountSat, minimum: terms.minAmountSat,
                                               maximum: terms.maxAmountSat)
            }
            throw .amountOutOfRange(amount: request.amountSat, minimum: terms.minAmountSat, maximum: terms.maxAmountSat)
        }
        guard request.amountSat <= lockableSat else {
            if direction == .onchainToLightning {
                throw .insufficientLightning(available: lockableSat, needed: request.amountSat)
            }
            throw .insufficientLiquidity(available: lockableSat, needed: request.amountSat, waiting: waitingSat)
        }
        let held = (perClient[client] ?? []).filter { now <= $0 }
        perClient[client] = held.isEmpty ? nil : held
        if held.count >= perClientCapacity, let oldest = held.first {
            throw .tooManyQuotesForPeer(limit: perClientCapacity, retryAfterSeconds: oldest - now + 1)
        }
        guard entries.count < capacity else { throw .tooManyQuotes(limit: capacity) }
        guard entries[quoteID] == nil else { throw .valueOutOfRange(field: "quote_id") }
        // One formula for both directions: total = amount + base + floor(amount × ppm / 1e6)
        // + the direction's on-chain fee. ln_to_onchain: the hold invoice's amount for a
        // lock of `amount`; onchain_to_ln: the lock the client makes for an invoice of `amount`.
        let quote = Quote(requestID: request.requestID, quoteID: quoteID, offerID: offer.offerID, direction: direction,
                          amountSat: request.amountSat,
                          serviceFeeSat: terms.feeModel.serviceFee(amountSat: request.amountSat),
                          onchainFeeSat: terms.onchainFeeSat, feeRateSatPerVByte: offer.feeRateSatPerVByte,
                          htlcTimeoutBlocks: terms.htlcTimeoutBlocks, requiredConfirmations: terms.requiredConfirmations,
                          validUntilUnix: now + lifetimeSeconds, paymentHash: request.paymentHash)
        entries[quoteID] = Entry(quote: quote, client: client, used: false)
        order.append(quoteID)
        perClient[client, default: []].append(quote.validUntilUnix)
        return quote
    }

    /// Takes quote `quoteID` for `client`'s SwapRequest: once, before it expires, and only
    /// for the client it was issued to.
    public mutating func redeem(quoteID: String, client: Pubky) throws(OffersError) -> Quote {
        let now = clock.nowUnix
        guard var entry = entries[quoteID] else { throw .unknownQuote }
        // Checked first: another client learns nothing, not even that the quote expired.
        guard entry.client == client else { throw .quoteNotForThisClient }
        guard now <= entry.quote.validUntilUnix else {
            dropExpired(now: now)
            throw .quoteExpired
        }
        guard !entry.used else { throw .quoteAlreadyUsed }
        entry.used = true
        entries[quoteID] = entry
        return entry.quote
    }

    private mutating func dropExpired(now: UInt64) {
        while orderStart < order.count {
            let id = order[orderStart]
            if let entry = entries[id], now <= entry.quote.validUntilUnix { break }
            if let entry = entries[id] {
                // One lifetime for all: the client's oldest expiry is this one.
                if var times = perClient[entry.client], !times.isEmpty {
                    times.removeFirst()
                    perClient[entry.client] = times.isEmpty ? nil : times
                }
            }
            entries[id] = nil
            orderStart += 1
        }
        // Compact now and then so the id list does not grow without bound.
        if orderStart > 1_024, orderStart * 2 > order.count {
            order.removeFirst(orderStart)
            orderStart = 0
        }
    }
}
