/// The largest X whose own quote fits the spending budget (DESIGN 7).
///
/// The budget bounds the invoice total: `quote.total_sat <= budgetSat` (the caller has
/// already taken the routing-fee reserve off the balance). The quoted amount is
/// X + claim fee. The search:
///
/// 1. The first candidate comes from the offer's terms: the largest amount whose
///    total under the offer's fee model fits, capped at the offer's maximum. Below the
///    minimum: nothing, without a round.
/// 2. Each round quotes its own candidate. A quote that fits is verified; one that does
///    not marks a miss. Only verified amounts are ever returned.
/// 3. A fit with slack climbs by the slack (converted with the offer's ppm), never to a
///    known miss; a fit with no room to climb, at the provider's maximum, or right after
///    a miss, settles. Accepting the first fit after a miss keeps rising fees to two
///    rounds: the miss above shows the fee is steeper than the terms, and the slack left
///    is only the difference in slope.
/// 4. A miss lowers by the excess; if that is no higher than the best verified amount,
///    that one settles.
/// 5. A failed quote stops with the best verified amount (or none) and the reason; so
///    does reaching `maxRounds`.
///
/// The same search serves both directions (`terms.direction`): `ln_to_onchain` quotes the
/// lock (X + claim fee) against the spending budget; `onchain_to_ln` (`max --from
/// savings`, `MaxFromSavings`) quotes the invoice X itself (claim fee 0) against the
/// savings left after the lock's own miner fee, and the quote's `total_sat` is the lock.
public struct MaxSendable: Sendable {
    public static let defaultMaxRounds = 6

    /// The terms searched under: amounts, fee model and on-chain fee of one direction.
    public let terms: DirectionTerms
    public let claimFeeSat: Int64
    public let budgetSat: Int64
    public let maxRounds: Int

    /// The reverse direction under `offer`'s top-level terms (its `ln_to_onchain` ones).
    public init(offer: Offer, claimFeeSat: Int64, budgetSat: Int64, maxRounds: Int = defaultMaxRounds) {
        self.init(terms: DirectionTerms(direction: .lightningToOnchain, minAmountSat: offer.minAmountSat,
                                        maxAmountSat: offer.maxAmountSat, baseFeeSat: offer.baseFeeSat, feePPM: offer.feePPM,
                                        onchainFeeSat: offer.onchainFeeSat, requiredConfirmations: offer.requiredConfirmations,
                                        htlcTimeoutBlocks: offer.htlcTimeoutBlocks),
                  claimFeeSat: claimFeeSat, budgetSat: budgetSat, maxRounds: maxRounds)
    }

    public init(terms: DirectionTerms, claimFeeSat: Int64, budgetSat: Int64, maxRounds: Int = defaultMaxRounds) {
        self.terms = terms
        self.claimFeeSat = claimFeeSat
        self.budgetSat = budgetSat
        self.maxRounds = max(1, maxRounds)
    }

    public func settle(using quoter: any Quoter) async -> MaxSendableResult {
        let model = terms.feeModel
        let scale = Amounts.million + model.feePPM
        // X must stay at least 1 sat above the claim fee, and the quoted amount within the terms.
        let minimum = max(terms.minAmountSat, claimFeeSat + 1)
        guard let fromTerms = model.largestAmount(withTotalAtMost: budgetSat, onchainFeeSat: terms.onchainFeeSat),
              min(fromTerms, terms.maxAmountSat) >= minimum else {
            return MaxSendableResult(amountSat: nil, quote: nil, rounds: 0, outcome: .budgetBelowMinimum)
        }
        var candidate = min(fromTerms, terms.maxAmountSat)
        var best: Quote?
        var lowestMiss: Int64?
        var rounds = 0

        func result(_ outcome: MaxSendableResult.Outcome) -> MaxSendableResult {
            MaxSendableResult(amountSat: best.map { $0.amountSat - claimFeeSat }, quote: best, rounds: rounds, outcome: outcome)
        }

        while rounds < maxRounds {
            rounds += 1
            let quote: Quote
            do {
                quote = try await quoter.quote(amountSat: candidate)
            } catch {
                return result(.quoteFailed("\(error)"))
            }
            guard quote.amountSat == candidate else {
                return result(.quoteFailed("the quote is for another amount than asked"))
            }
            guard quote.swapDirection == terms.direction else {
                return result(.quoteFailed("the quote is for another direction than asked"))
            }
            if quote.totalSat <= budgetSat {
                best = quote
                if candidate >= terms.maxAmountSat { return result(.atProviderMaximum) }
                if lowestMiss != nil { return result(.settled) }
                // floor(slack × 1e6 / (1e6 + ppm)): what the slack buys at the offer's rate.
                let slack = budgetSat - quote.totalSat
                let climb = scale.dividingFullWidth(slack.multipliedFullWidth(by: Amounts.million)).quotient
                let next = min(candidate + climb, terms.maxAmountSat)
                guard next > candidate else { return result(.settled) }
                candidate = next
            } else {
                lowestMiss = min(lowestMiss ?? candidate, candidate)
                // ceil(excess × 1e6 / (1e6 + ppm)), at least 1.
                let excess = quote.totalSat - budgetSat
                let (quotient, remainder) = scale.dividingFullWidth(excess.multipliedFullWidth(by: Amounts.million))
                let next = candidate - max(1, remainder > 0 ? quotient + 1 : quotient)
                if let verified = best, next <= verified.amountSat { return result(.settled) }
                guard next >= minimum else {
                    return best == nil ? result(.budgetBelowMinimum) : result(.settled)
                }
                candidate = next
            }
        }
        return result(.roundsExhausted)
    }
}
