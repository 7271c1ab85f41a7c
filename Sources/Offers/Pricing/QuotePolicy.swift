import HTLC
import Transport

/// What a client requires of a quote before it commits: signed by the provider it asked,
/// an answer to its own request, numbers that add up, a fee under its maximum, and sane
/// confirmations and lifetime.
public struct QuotePolicy: Sendable, Hashable {
    /// 5% of the amount.
    public static let defaultMaxFeePPM: Int64 = 50_000
    public static let defaultMaxRequiredConfirmations = 6
    /// The provider's default lifetime is 300 s; allow for clocks that differ.
    public static let defaultMaxLifetimeSeconds: UInt64 = 600

    public var maxFeePPM: Int64
    public var maxRequiredConfirmations: Int
    public var maxLifetimeSeconds: UInt64

    public init(maxFeePPM: Int64 = defaultMaxFeePPM, maxRequiredConfirmations: Int = defaultMaxRequiredConfirmations,
                maxLifetimeSeconds: UInt64 = defaultMaxLifetimeSeconds) {
        self.maxFeePPM = maxFeePPM
        self.maxRequiredConfirmations = maxRequiredConfirmations
        self.maxLifetimeSeconds = maxLifetimeSeconds
    }

    /// The largest whole fee accepted for locking `amountSat`.
    public func maximumFee(amountSat: Int64) -> Int64 {
        Amounts.partsPerMillion(min(maxFeePPM, Amounts.million), of: amountSat)
    }

    /// Returns the quote when it passes. `offer`, when given, is the offer it was asked
    /// under: the quote may not charge more than that offer's terms.
    @discardableResult
    public func check(_ signed: Signed<Quote>, answering request: QuoteRequest, provider: Pubky, offer: Offer? = nil,
                      nowUnix: UInt64) throws(OffersError) -> Quote {
        try signed.verify(by: provider)
        let quote = signed.body
        guard quote.requestID == request.requestID else { throw .quoteMismatch("request_id is not the request's") }
        guard quote.offerID == request.offerID else { throw .quoteMismatch("offer_id is not the one asked for") }
        guard quote.direction == request.direction else { throw .quoteMismatch("direction is not the one asked for") }
        guard quote.amountSat == request.amountSat else { throw .quoteMismatch("amount_sat is not the amount asked for") }
        guard let direction = request.swapDirection else { throw .unsupportedDirection }
        guard quote.paymentHash == request.paymentHash else {
            throw .quoteMismatch("payment_hash is not the one asked for")
        }
        guard quote.feeSat == quote.serviceFeeSat + quote.onchainFeeSat else {
            throw .quoteMismatch("fee_sat is not service_fee_sat + onchain_fee_sat")
        }
        guard quote.totalSat == quote.amountSat + quote.feeSat else {
            throw .quoteMismatch("total_sat is not amount_sat + fee_sat")
        }
        let maximum = maximumFee(amountSat: quote.amountSat)
        guard quote.feeSat <= maximum else { throw .feeAboveMaximum(fee: quote.feeSat, maximum: maximum) }
        if let offer {
            guard offer.offerID == quote.offerID else { throw .quoteMismatch("offer_id is not the offer's") }
            guard let terms = offer.terms(for: direction) else {
                throw .quoteMismatch("the offer does not run \(direction.rawValue)")
            }
            guard quote.serviceFeeSat <= terms.feeModel.serviceFee(amountSat: quote.amountSat),
                  quote.onchainFeeSat <= terms.onchainFeeSat else {
                throw .quoteMismatch("fees above the offer's terms")
            }
            // The client's lock waits this long for its refund if the provider never pays:
            // no longer than the offer it chose the provider by.
            if direction == .onchainToLightning, quote.htlcTimeoutBlocks > terms.htlcTimeoutBlocks {
                throw .quoteMismatch("htlc_timeout_blocks \(quote.htlcTimeoutBlocks) above the offer's \(terms.htlcTimeoutBlocks)")
            }
        }
        try checkTerms(requiredConfirmations: quote.requiredConfirmations, htlcTimeoutBlocks: quote.htlcTimeoutBlocks)
        // A provider that pays against an unconfirmed lock can be robbed by a full-RBF
        // double-spend; one that says it will is not one to lock with.
        if direction == .onchainToLightning, quote.requiredConfirmations < 1 {
            throw .unacceptableTerms("onchain_to_ln with 0 confirmations (at least 1)")
        }
        guard quote.validUntilUnix >= nowUnix else { throw .quoteExpired }
        guard quote.validUntilUnix - nowUnix <= maxLifetimeSeconds else {
            throw .unacceptableTerms("quote valid for more than \(maxLifetimeSeconds) s")
        }
        return quote
    }

    /// Confirmations this client will wait for, and a timeout long enough to pass the
    /// accept rule of DESIGN 6 (timeout − tip >= confirmations + 24) and no longer than
    /// its maximum.
    public func checkTerms(requiredConfirmations: Int, htlcTimeoutBlocks: Int) throws(OffersError) {
        guard requiredConfirmations <= maxRequiredConfirmations else {
            throw .unacceptableTerms("\(requiredConfirmations) confirmations (at most \(maxRequiredConfirmations))")
        }
        let shortest = requiredConfirmations + TimelockPolicy.acceptMargin
        guard (shortest...TimelockPolicy.maximumHTLCTimeoutBlocks).contains(htlcTimeoutBlocks) else {
            throw .unacceptableTerms("htlc_timeout_blocks \(htlcTimeoutBlocks) outside \(shortest)...\(TimelockPolicy.maximumHTLCTimeoutBlocks)")
        }
    }
}
