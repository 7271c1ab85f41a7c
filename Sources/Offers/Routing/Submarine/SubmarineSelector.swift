import HTLC

/// Prices every offer's `onchain_to_ln` terms for paying X and orders them: lowest total
/// cost (service fee + the provider's on-chain fee + the lock's miner fee) first; ties go
/// to fewer confirmations (the payee is paid sooner), then a shorter timeout (the client's
/// savings wait less if the provider never pays), then the pubky (so the order is total).
///
/// The shape of `RouteSelector`, apart where the direction differs: the amounts of these
/// terms are invoice amounts, so X is compared with them directly (no claim fee rides in
/// the lock), and the client's own on-chain cost is the lock's fee, not a claim's.
public struct SubmarineSelector: Sendable {
    /// X: the contact's invoice amount.
    public let amountSat: Int64
    /// The lock transaction's miner fee at the client's rate (the shell's estimate: one
    /// contract output and change). The same for every provider, so it never changes the
    /// order; it counts when this route is compared with others and with the savings.
    public let lockFeeSat: Int64
    /// The contract type the payer asked for; nil takes each offer's preferred one.
    public let contractType: ContractType?

    public init(amountSat: Int64, lockFeeSat: Int64, contractType: ContractType? = nil) {
        self.amountSat = amountSat
        self.lockFeeSat = lockFeeSat
        self.contractType = contractType
    }

    /// The candidate for one offer, or why it does not fit.
    public func price(_ provider: ProviderOffer) -> Result<SubmarineCandidate, SkipReason> {
        let offer = provider.terms
        guard let terms = offer.terms(for: .onchainToLightning) else {
            return .failure(.directionNotOffered(.onchainToLightning))
        }
        let offered = OfferFeature.contractTypes(in: offer.features)
        let contractType: ContractType
        if let wanted = self.contractType {
            guard offered.contains(wanted) else { return .failure(.contractTypeNotOffered(wanted: wanted, offered: offered)) }
            contractType = wanted
        } else {
            guard let preferred = offered.first else { return .failure(.onlyRetiredContracts) }
            contractType = preferred
        }
        guard terms.minAmountSat <= terms.maxAmountSat, (terms.minAmountSat...terms.maxAmountSat).contains(amountSat) else {
            return .failure(.invoiceAmountOutOfRange(amountSat: amountSat, minimumSat: terms.minAmountSat,
                                                     maximumSat: terms.maxAmountSat))
        }
        let serviceFee = terms.feeModel.serviceFee(amountSat: amountSat)
        return .success(SubmarineCandidate(provider: provider, contractType: contractType, amountSat: amountSat,
                                           serviceFeeSat: serviceFee, providerOnchainFeeSat: terms.onchainFeeSat,
                                           lockAmountSat: amountSat + serviceFee + terms.onchainFeeSat,
                                           lockFeeSat: lockFeeSat))
    }

    /// Fitting candidates, best first, and the offers that do not fit this amount.
    public func rank(_ providers: [ProviderOffer]) -> RankedCandidates<SubmarineCandidate> {
        var ranked: [SubmarineCandidate] = []
        var unfit: [SkippedContact] = []
        for provider in providers {
            switch price(provider) {
            case .success(let candidate): ranked.append(candidate)
            case .failure(let reason): unfit.append(SkippedContact(contact: provider.contact, reason: reason))
            }
        }
        ranked.sort(by: Self.isBetter)
        return RankedCandidates(ranked: ranked, skipped: unfit)
    }

    static func isBetter(_ a: SubmarineCandidate, than b: SubmarineCandidate) -> Bool {
        if a.totalCostSat != b.totalCostSat { return a.totalCostSat < b.totalCostSat }
        // Both run the direction: `price` checked it.
        let termsA = a.provider.terms.terms(for: .onchainToLightning)
        let termsB = b.provider.terms.terms(for: .onchainToLightning)
        let (confirmationsA, confirmationsB) = (termsA?.requiredConfirmations ?? 0, termsB?.requiredConfirmations ?? 0)
        if confirmationsA != confirmationsB { return confirmationsA < confirmationsB }
        let (timeoutA, timeoutB) = (termsA?.htlcTimeoutBlocks ?? 0, termsB?.htlcTimeoutBlocks ?? 0)
        if timeoutA != timeoutB { return timeoutA < timeoutB }
        return a.provider.contact.pubky.z32 < b.provider.contact.pubky.z32
    }
}
