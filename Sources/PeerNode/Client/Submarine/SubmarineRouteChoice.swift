import HTLC
import Offers

/// Which provider takes a submarine swap of `amountSat` (the invoice amount): among the
/// probed offers that run `onchain_to_ln` and take the amount, the one whose lock costs
/// least (service fee + its claim fee), ties to fewer confirmations, then the pubky. Pure
/// and in one place, so the rail-choice router can call it or replace it.
public struct SubmarineRouteChoice: Sendable {
    public struct Candidate: Sendable, Equatable {
        public let provider: ProviderOffer
        public let terms: DirectionTerms
        public let serviceFeeSat: Int64
        /// What the client locks: the amount, the service fee and the provider's claim fee.
        public var lockTotalSat: Int64 { amountSat + serviceFeeSat + terms.onchainFeeSat }
        public var feesSat: Int64 { serviceFeeSat + terms.onchainFeeSat }
        let amountSat: Int64
    }

    public let amountSat: Int64
    public let ranked: [Candidate]
    /// Contacts left out, with why.
    public let skipped: [(contact: Offers.Contact, reason: String)]

    public var choice: Candidate? { ranked.first }

    public init(amountSat: Int64, offers: [ProviderOffer]) {
        self.amountSat = amountSat
        var ranked: [Candidate] = []
        var skipped: [(Offers.Contact, String)] = []
        for provider in offers {
            guard let terms = provider.offer.body.terms(for: .onchainToLightning) else {
                skipped.append((provider.contact, "does not swap on-chain to Lightning"))
                continue
            }
            guard terms.minAmountSat <= amountSat, amountSat <= terms.maxAmountSat else {
                skipped.append((provider.contact, "swaps \(terms.minAmountSat)...\(terms.maxAmountSat) sat on-chain to Lightning"))
                continue
            }
            let service = FeeModel(baseFeeSat: terms.baseFeeSat, feePPM: terms.feePPM).serviceFee(amountSat: amountSat)
            ranked.append(Candidate(provider: provider, terms: terms, serviceFeeSat: service, amountSat: amountSat))
        }
        ranked.sort { a, b in
            if a.feesSat != b.feesSat { return a.feesSat < b.feesSat }
            if a.terms.requiredConfirmations != b.terms.requiredConfirmations {
                return a.terms.requiredConfirmations < b.terms.requiredConfirmations
            }
            return a.provider.contact.pubky.z32 < b.provider.contact.pubky.z32
        }
        self.ranked = ranked
        self.skipped = skipped
    }
}
