/// `max --from savings`: the largest X the confirmed savings can pay (docs/ROUTING.md).
///
/// - Directly on chain, when the contact takes on-chain: `savings − sweep fee`, where the
///   sweep fee is that of one transaction spending every confirmed coin to the contact's
///   address with no change, the largest a send of everything can cost. Anything smaller
///   fits: it spends no more coins, or gives change from room that is already there.
/// - Through a submarine swap, when the contact takes Lightning (or for `swap-in`): per
///   provider, `MaxSendable` over its `onchain_to_ln` terms with the budget `savings −
///   lock sweep fee` (the same sweep, into the contract), settled against real quotes:
///   the largest X whose quoted `total_sat` (the lock) plus the lock's miner fee fits.
///
/// A direct amount beats a swapped one (rule 3 of the rail choice: no fee to a provider,
/// so it is also the larger); between providers the largest X, ties to the cheaper lock.
public struct MaxFromSavings: Sendable {
    /// Confirmed savings.
    public let savingsSat: Int64
    /// The miner fee of a lock spending every confirmed coin into one contract output,
    /// without change, at the lock's rate.
    public let lockSweepFeeSat: Int64
    public let maxRounds: Int

    public init(savingsSat: Int64, lockSweepFeeSat: Int64, maxRounds: Int = MaxSendable.defaultMaxRounds) {
        self.savingsSat = savingsSat
        self.lockSweepFeeSat = lockSweepFeeSat
        self.maxRounds = maxRounds
    }

    /// What the lock itself may hold: the savings less the lock's largest miner fee.
    public var lockBudgetSat: Int64 { savingsSat - lockSweepFeeSat }

    /// The largest X sent directly: savings less the sweep's fee, nil when that leaves
    /// less than the destination's dust limit (the wallet would not create the output).
    public static func directMax(savingsSat: Int64, sweepFeeSat: Int64, dustLimitSat: Int64) -> Int64? {
        let amount = savingsSat - sweepFeeSat
        return amount >= max(1, dustLimitSat) ? amount : nil
    }

    /// The search for `provider`, or why it cannot be asked: its offer runs no
    /// `onchain_to_ln`.
    public func search(_ provider: ProviderOffer) -> Result<MaxSendable, SkipReason> {
        guard let terms = provider.terms.terms(for: .onchainToLightning) else {
            return .failure(.directionNotOffered(.onchainToLightning))
        }
        // The quoted amount is X itself: no claim fee rides in the lock in this direction.
        return .success(MaxSendable(terms: terms, claimFeeSat: 0, budgetSat: lockBudgetSat, maxRounds: maxRounds))
    }

    /// Settles `provider`'s largest X with `quoter` (which asks it for `onchain_to_ln` quotes).
    public func settle(_ provider: ProviderOffer, using quoter: any Quoter) async -> Result<MaxSendableResult, SkipReason> {
        switch search(provider) {
        case .failure(let reason): return .failure(reason)
        case .success(let search): return .success(await search.settle(using: quoter))
        }
    }

    /// The answer over the direct amount (nil when the contact takes no on-chain, or it
    /// leaves nothing) and each provider's settled result.
    public static func best(direct: Int64?, submarine: [(provider: ProviderOffer, result: MaxSendableResult)]) -> SavingsMax? {
        if let direct { return .direct(amountSat: direct) }
        var best: (provider: ProviderOffer, amount: Int64, quote: Quote, result: MaxSendableResult)?
        for (provider, result) in submarine {
            guard let amount = result.amountSat, let quote = result.quote else { continue }
            if let current = best {
                if amount < current.amount { continue }
                if amount == current.amount, quote.totalSat >= current.quote.totalSat { continue }
            }
            best = (provider, amount, quote, result)
        }
        return best.map { SavingsMax.submarine(provider: $0.provider, amountSat: $0.amount, result: $0.result) }
    }
}

/// The largest amount savings can pay, and how.
public enum SavingsMax: Sendable, Equatable {
    case direct(amountSat: Int64)
    /// `result.quote.totalSat` is the lock; the lock's fee comes on top.
    case submarine(provider: ProviderOffer, amountSat: Int64, result: MaxSendableResult)

    public var amountSat: Int64 {
        switch self {
        case .direct(let amount), .submarine(_, let amount, _): return amount
        }
    }
}
