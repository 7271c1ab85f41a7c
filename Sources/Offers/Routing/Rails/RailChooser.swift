/// Chooses how to pay a contact X (docs/ROUTING.md): a pure function of what the contact
/// takes, the wallet's balances, `--from`, the fee estimates and the providers' ranked
/// candidates in each swap direction.
///
/// Rules, in order:
/// 1. `--from` keeps only the routes that spend that balance; the contact's rails keep
///    only the routes that deliver on a rail it takes.
/// 2. A route fits when its balance covers X plus all its fees; a swap also needs a
///    provider whose fee this node's `QuotePolicy` accepts and, with `--max-fee`, whose
///    fees in all stay under it.
/// 3. A direct route that fits beats every swap.
/// 4. Between two direct routes, the cheaper; a tie keeps the savings (pays on Lightning).
/// 5. Otherwise the cheapest swap over both directions; a tie keeps the savings (the
///    reverse swap), then each selector's own order.
/// 6. Nothing fits: a refusal naming, for every route left open, the balance and what it
///    needed, or why no provider can.
public struct RailChooser: Sendable {
    public let contact: String
    public let payee: PayeeRails
    /// X: what the payee receives.
    public let amountSat: Int64
    /// Confirmed on-chain savings.
    public let savingsSat: Int64
    /// The Lightning spending balance (what the node can send in one payment).
    public let spendingSat: Int64
    /// `--from`, when given.
    public let source: RailSource?
    /// The miner fee of sending X from savings directly at the send's rate.
    public let onchainSendFeeSat: Int64
    /// The routing fee expected for paying the contact's invoice of X directly.
    public let routingFee: RoutingFeeEstimate
    /// Reverse swaps (spending → on-chain) for X: `ProbeReport.reverse(_:)`.
    public let reverse: RankedCandidates<RouteCandidate>
    /// Submarine swaps (savings → Lightning) for X: `ProbeReport.submarine(_:)`.
    public let submarine: RankedCandidates<SubmarineCandidate>
    /// The fee bound a provider's quote must meet.
    public let quotePolicy: QuotePolicy
    /// `--max-fee`: every fee of a swap together at most this.
    public let maxFeeSat: Int64?
    /// `--contract-type`: a contract is a swap's, so only swaps are considered.
    public let swapsOnly: Bool

    public init(contact: String, payee: PayeeRails, amountSat: Int64, savingsSat: Int64, spendingSat: Int64,
                source: RailSource? = nil, onchainSendFeeSat: Int64, routingFee: RoutingFeeEstimate = RoutingFeeEstimate(),
                reverse: RankedCandidates<RouteCandidate> = RankedCandidates(),
                submarine: RankedCandidates<SubmarineCandidate> = RankedCandidates(),
                quotePolicy: QuotePolicy = QuotePolicy(), maxFeeSat: Int64? = nil, swapsOnly: Bool = false) {
        self.contact = contact
        self.payee = payee
        self.amountSat = amountSat
        self.savingsSat = savingsSat
        self.spendingSat = spendingSat
        self.source = source
        self.onchainSendFeeSat = onchainSendFeeSat
        self.routingFee = routingFee
        self.reverse = reverse
        self.submarine = submarine
        self.quotePolicy = quotePolicy
        self.maxFeeSat = maxFeeSat
        self.swapsOnly = swapsOnly
    }

    public func choose() throws(RailRefusal) -> RailPlan {
        guard amountSat > 0, amountSat <= Amounts.maximumSat else { throw .invalidAmount(amountSat) }
        guard payee.onchain || payee.lightning else { throw .payeeTakesNoRail(contact: contact) }
        var verdicts: [RailVerdict] = []
        var fitting: [RailRoute] = []
        for option in RailOption.allCases {
            let (outcome, routes) = evaluate(option)
            verdicts.append(RailVerdict(option: option, outcome: outcome))
            fitting += routes
        }
        let direct = fitting.filter(\.kind.isDirect)
        let ordered = direct.isEmpty ? fitting.sorted(by: Self.isBetter) : direct.sorted(by: Self.isBetter)
        guard let choice = ordered.first else {
            let open = verdicts.filter(\.isOpen)
            let onlyBalances = open.allSatisfy { if case .balanceTooSmall = $0.outcome { return true } else { return false } }
            if onlyBalances, !open.isEmpty {
                throw .balancesTooSmall(contact: contact, amountSat: amountSat, verdicts: verdicts)
            }
            throw .noRoute(contact: contact, amountSat: amountSat, payee: payee, source: source, verdicts: verdicts)
        }
        let alternatives = (direct.isEmpty ? ordered : ordered + fitting.filter { !$0.kind.isDirect }.sorted(by: Self.isBetter))
            .dropFirst()
        return RailPlan(contact: contact, amountSat: amountSat, route: choice, reason: reason(choice, verdicts: verdicts),
                        alternatives: Array(alternatives), verdicts: verdicts)
    }

    /// Cheaper first; a tie keeps the savings (the route spending the Lightning balance).
    /// Sorting is stable, so routes of one kind keep their selector's order.
    static func isBetter(_ a: RailRoute, than b: RailRoute) -> Bool {
        if a.costSat != b.costSat { return a.costSat < b.costSat }
        return a.kind.source == .spending && b.kind.source == .savings
    }

    /// The outcome of one kind of route and, when it fits, every route of that kind that does.
    private func evaluate(_ option: RailOption) -> (RailVerdict.Outcome, [RailRoute]) {
        if let source, source != option.source { return (.notFrom(source), []) }
        guard payee.takes(option.rail) else { return (.payeeDoesNotTake(option.rail), []) }
        if swapsOnly, option.isDirect { return (.swapAsked, []) }
        switch option {
        case .directOnchain:
            return direct(.directOnchain(feeSat: onchainSendFeeSat), balance: savingsSat)
        case .directLightning:
            return direct(.directLightning(routingFeeSat: routingFee.fee(paymentSat: amountSat)), balance: spendingSat)
        case .reverseSwap:
            return swaps(reverse.ranked.map { candidate in
                (RailRoute.reverseSwap(candidate), candidate.serviceFeeSat + candidate.providerOnchainFeeSat,
                 quotePolicy.maximumFee(amountSat: candidate.lockAmountSat), candidate.lockAmountSat)
            }, source: .spending, balance: spendingSat, skipped: reverse.skipped)
        case .submarineSwap:
            return swaps(submarine.ranked.map { candidate in
                // The quote's amount is X here: its fee is bounded on X.
                (RailRoute.submarineSwap(candidate), candidate.providerFeeSat, quotePolicy.maximumFee(amountSat: candidate.amountSat),
                 candidate.amountSat)
            }, source: .savings, balance: savingsSat, skipped: submarine.skipped)
        }
    }

    private func direct(_ route: RailRoute, balance: Int64) -> (RailVerdict.Outcome, [RailRoute]) {
        let needed = amountSat + route.costSat
        guard needed <= balance else {
            return (.balanceTooSmall(source: route.kind.source, balanceSat: balance, neededSat: needed), [])
        }
        return (.fits(route), [route])
    }

    /// `routes` in their selector's order, each with its provider fee and the policy's
    /// maximum for it.
    private func swaps(_ routes: [(route: RailRoute, providerFee: Int64, maximum: Int64, base: Int64)], source: RailSource,
                       balance: Int64,
                       skipped: [SkippedContact]) -> (RailVerdict.Outcome, [RailRoute]) {
        var fits: [RailRoute] = []
        var unfit = skipped
        var cheapestShort: Int64?
        for (route, providerFee, maximum, base) in routes {
            guard let provider = route.provider?.contact else { continue }
            let needed = amountSat + route.costSat
            if providerFee > maximum {
                unfit.append(SkippedContact(contact: provider, reason: .feeAboveMaximum(
                    feeSat: providerFee, maximumSat: maximum, maxFeePPM: quotePolicy.maxFeePPM, ofSat: base)))
            } else if let maxFeeSat, route.costSat > maxFeeSat {
                unfit.append(SkippedContact(contact: provider, reason: .aboveMaxFee(feeSat: route.costSat, capSat: maxFeeSat)))
            } else if needed > balance {
                cheapestShort = min(cheapestShort ?? needed, needed)
                unfit.append(SkippedContact(contact: provider, reason: .balanceTooSmall(source: source, neededSat: needed,
                                                                                       balanceSat: balance)))
            } else {
                fits.append(route)
            }
        }
        if let best = fits.first { return (.fits(best), fits) }
        // Some provider would take X under every limit but the balance: that is what is missing.
        if let cheapestShort { return (.balanceTooSmall(source: source, balanceSat: balance, neededSat: cheapestShort), []) }
        return (.noProvider(skipped: unfit), [])
    }

    // MARK: the reason line

    private func reason(_ choice: RailRoute, verdicts: [RailVerdict]) -> String {
        let sats = OffersError.sats
        let from = source.map { " (--from \($0.rawValue))" } ?? ""
        switch choice {
        case .directLightning(let fee):
            return "\(contact) takes Lightning and spending covers \(sats(amountSat)) + \(sats(fee)) routing fee: paying directly"
                + versusOtherDirect(choice, verdicts: verdicts) + from
        case .directOnchain(let fee):
            return "\(contact) takes on-chain and savings cover \(sats(amountSat)) + \(sats(fee)) fee: sending directly from savings"
                + versusOtherDirect(choice, verdicts: verdicts) + from
        case .reverseSwap(let candidate):
            return "\(contact) takes \(payee.description) and \(whyNoDirect(verdicts)): swapping out through "
                + "\(candidate.provider.contact.name), \(sats(candidate.totalCostSat))"
        case .submarineSwap(let candidate):
            return "\(contact) takes \(payee.description) and \(whyNoDirect(verdicts)): swapping in through "
                + "\(candidate.provider.contact.name), \(sats(candidate.totalCostSat))"
        }
    }

    /// When both direct routes fit, why this one.
    private func versusOtherDirect(_ choice: RailRoute, verdicts: [RailVerdict]) -> String {
        let other: RailOption = choice.kind == .directLightning ? .directOnchain : .directLightning
        guard let route = verdicts.first(where: { $0.option == other })?.route else { return "" }
        let name = other == .directOnchain ? "on-chain" : "Lightning"
        if route.costSat == choice.costSat { return " (as cheap as \(name); savings kept)" }
        return " (cheaper than \(name), \(OffersError.sats(route.costSat)))"
    }

    /// Why no direct route fits, for a swap's reason line: `--from`, or the balances.
    private func whyNoDirect(_ verdicts: [RailVerdict]) -> String {
        var parts: [String] = []
        for verdict in verdicts where verdict.option.isDirect {
            switch verdict.outcome {
            case .notFrom(let source):
                let part = "--from \(source.rawValue)"
                if !parts.contains(part) { parts.append(part) }
            case .balanceTooSmall(let source, let balance, let needed):
                if balance == 0 {
                    let other = source == .spending ? savingsSat : spendingSat
                    parts.append(other > 0 ? (source == .spending ? "the wallet holds only savings" : "the wallet holds only spending funds")
                                           : "the wallet holds no \(source.balanceName)")
                } else {
                    parts.append("\(source.doesNotCover(balance)) \(OffersError.sats(needed))")
                }
            case .swapAsked:
                if !parts.contains("--contract-type asks for a swap") { parts.append("--contract-type asks for a swap") }
            case .fits, .payeeDoesNotTake, .noProvider:
                continue
            }
        }
        return parts.joined(separator: " and ")
    }
}
