import HTLC

/// Prices every offer for paying X and orders them: lowest total cost (service fee +
/// provider on-chain fee + claim fee + expected routing fee) first; ties go to fewer
/// confirmations, then a shorter timeout, then the pubky (so the order is total).
public struct RouteSelector: Sendable {
    public let amountSat: Int64
    public let destination: DestinationType
    public let claimFeeRate: FeeRate
    public let routingFee: RoutingFeeEstimate
    /// The contract type the payer asked for (`--contract-type`); nil takes each offer's
    /// preferred one.
    public let contractType: ContractType?
    /// The payer's claim policy: a route whose claim it would refuse is skipped.
    public let claimPolicy: ClaimPolicy

    public init(amountSat: Int64, destination: DestinationType, claimFeeRate: FeeRate,
                routingFee: RoutingFeeEstimate = RoutingFeeEstimate(), contractType: ContractType? = nil,
                claimPolicy: ClaimPolicy = .default) {
        self.amountSat = amountSat
        self.destination = destination
        self.claimFeeRate = claimFeeRate
        self.routingFee = routingFee
        self.contractType = contractType
        self.claimPolicy = claimPolicy
    }

    /// The candidate for one offer, or why it does not fit.
    public func price(_ provider: ProviderOffer) -> Result<RouteCandidate, SkipReason> {
        let offer = provider.terms
        // The top-level terms are a submarine-only provider's `onchain_to_ln` ones: never
        // price a reverse swap from them.
        guard offer.supports(.lightningToOnchain) else { return .failure(.directionNotOffered(.lightningToOnchain)) }
        // DESIGN 5's default when offered; P2WSH is for providers without Taproot. (A
        // P2WSH claim can be a vbyte smaller, but only with the longest ECDSA signature
        // assumed, and Taproot locks look like any other output.)
        let offered = OfferFeature.contractTypes(in: offer.features)
        let contractType: ContractType
        if let wanted = self.contractType {
            guard offered.contains(wanted) else { return .failure(.contractTypeNotOffered(wanted: wanted, offered: offered)) }
            contractType = wanted
        } else {
            guard let preferred = offered.first else { return .failure(.onlyRetiredContracts) }
            contractType = preferred
        }
        let claimFee = ContractSizes.claimFee(contractType, destination: destination, rate: claimFeeRate)
        let lockAmount = amountSat + claimFee
        guard (offer.minAmountSat...max(offer.minAmountSat, offer.maxAmountSat)).contains(lockAmount),
              offer.minAmountSat <= offer.maxAmountSat else {
            // Said in amounts the payer types: the lock carries X plus the claim fee.
            return .failure(.amountOutOfRange(amountSat: amountSat, minimumSat: max(1, offer.minAmountSat - claimFee),
                                              maximumSat: offer.maxAmountSat - claimFee))
        }
        // The lock holds X plus exactly the claim fee: the claim must fit the payer's cap.
        let cap = claimPolicy.feeCap(lockValue: lockAmount)
        guard claimFee <= cap else { return .failure(.claimFeeAboveCap(feeSat: claimFee, capSat: cap)) }
        let serviceFee = offer.feeModel.serviceFee(amountSat: lockAmount)
        let invoiceTotal = lockAmount + serviceFee + offer.onchainFeeSat
        return .success(RouteCandidate(provider: provider, contractType: contractType, amountSat: amountSat,
                                       claimFeeSat: claimFee, lockAmountSat: lockAmount, serviceFeeSat: serviceFee,
                                       providerOnchainFeeSat: offer.onchainFeeSat, invoiceTotalSat: invoiceTotal,
                                       routingFeeSat: routingFee.fee(paymentSat: invoiceTotal)))
    }

    /// `rank` as one value, beside `SubmarineSelector.rank`'s.
    public func ranked(_ providers: [ProviderOffer]) -> RankedCandidates<RouteCandidate> {
        let (ranked, unfit) = rank(providers)
        return RankedCandidates(ranked: ranked, skipped: unfit)
    }

    /// Fitting candidates, best first, and the offers that do not fit this amount.
    public func rank(_ providers: [ProviderOffer]) -> (ranked: [RouteCandidate], unfit: [SkippedContact]) {
        var ranked: [RouteCandidate] = []
        var unfit: [SkippedContact] = []
        for provider in providers {
            switch price(provider) {
            case .success(let candidate): ranked.append(candidate)
            case .failure(let reason): unfit.append(SkippedContact(contact: provider.contact, reason: reason))
            }
        }
        ranked.sort(by: Self.isBetter)
        return (ranked, unfit)
    }

    static func isBetter(_ a: RouteCandidate, than b: RouteCandidate) -> Bool {
        if a.totalCostSat != b.totalCostSat { return a.totalCostSat < b.totalCostSat }
        let (offerA, offerB) = (a.provider.terms, b.provider.terms)
        if offerA.requiredConfirmations != offerB.requiredConfirmations {
            return offerA.requiredConfirmations < offerB.requiredConfirmations
        }
        if offerA.htlcTimeoutBlocks != offerB.htlcTimeoutBlocks { return offerA.htlcTimeoutBlocks < offerB.htlcTimeoutBlocks }
        return a.provider.contact.pubky.z32 < b.provider.contact.pubky.z32
    }
}
