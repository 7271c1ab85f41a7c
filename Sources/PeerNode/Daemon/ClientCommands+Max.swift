import Bitcoin
import HTLC
import Offers
import Transport

extension ClientCommands {
    /// `max [--contact] [--from savings|spending]`: the largest X `pay` (or, without a
    /// contact, `swap-out` / with `--from savings` `swap-in`) can send from one balance
    /// (DESIGN 7, docs/ROUTING.md). Without `--from`, the spending balance, as `pay`
    /// spends it first for a contact that takes Lightning and through a provider otherwise.
    func max(contact which: String?, options: SwapOptions, progress: CommandProgress) async throws(ControlError) -> JSONValue {
        if options.contractType != nil || options.maxFeeSat != nil {
            throw .invalidRequest("max takes no contract type or fee cap: it reports the largest amount over every provider")
        }
        var contact: SavedContact?
        var rails: ContactRails?
        if let which {
            let saved = try await savedContact(which)
            progress.stage("endpoints", "asking \(saved.name) for its endpoints")
            let found = try await contactRails(of: saved)
            try found.requireARail(contact: saved.name, network: services.config.network)
            (contact, rails) = (saved, found)
        }
        if options.source == .savings {
            return try await maxFromSavings(contact: contact, rails: rails, progress: progress)
        }
        if let rails, rails.lightning != nil {
            return try await maxDirectLightning(contact: contact, progress: progress)
        }
        var destinationType = DestinationType.p2tr
        if let rails {
            guard let address = rails.onchain else { throw .failed("\(contact?.name ?? "the contact") gave no on-chain address") }
            destinationType = try Self.destinationType(address)
        }
        return try await maxSwapOut(contactName: contact?.name, destinationType: destinationType, progress: progress)
    }

    /// The spending balance less the routing-fee reserve (the reserve for the balance
    /// itself bounds the reserve of any smaller payment) and the balance.
    private func spendingBudget() async throws(ControlError) -> (balanceSat: Int64, budgetSat: Int64) {
        let balanceSat: Int64
        do {
            balanceSat = Int64(clamping: try await services.lightning.spendableBalance() / 1_000)
        } catch {
            throw .backend("the spending balance cannot be read: \(error)")
        }
        return (balanceSat, balanceSat - engine.configuration.routingFee.fee(paymentSat: balanceSat))
    }

    /// A contact that takes Lightning is paid directly from spending: the budget itself.
    private func maxDirectLightning(contact: SavedContact?, progress: CommandProgress) async throws(ControlError) -> JSONValue {
        let (balanceSat, budgetSat) = try await spendingBudget()
        guard budgetSat > 0 else {
            throw ControlError(code: "no_route", message: "the spending balance of \(Self.grouped(balanceSat)) sat does not cover "
                               + "the routing reserve of \(Self.grouped(balanceSat - budgetSat)) sat: nothing can be sent")
        }
        progress.stage("route", "\(contact?.name ?? "the contact") takes Lightning: paid directly from spending")
        var result: [String: JSONValue] = [
            "max_sat": .integer(budgetSat), "route": .string(RailOption.directLightning.rawValue), "source": .string("spending"),
            "balance_sat": .integer(balanceSat), "budget_sat": .integer(budgetSat),
            "routing_reserve_sat": .integer(balanceSat - budgetSat), "outcome": .string("the spending balance less the routing reserve"),
        ]
        if let contact { result["contact"] = .string(contact.name) }
        return .object(result)
    }

    /// The largest X the spending balance can swap out to `destinationType` through any
    /// provider: each provider's amount is settled by `MaxSendable` with real quotes, so
    /// only an amount whose own quote was seen to fit is offered.
    private func maxSwapOut(contactName: String?, destinationType: DestinationType,
                            progress: CommandProgress) async throws(ControlError) -> JSONValue {
        let (balanceSat, budgetSat) = try await spendingBudget()
        let routing = engine.configuration.routingFee
        let rate = try await feeRate(target: engine.configuration.claimFeeTargetBlocks, purpose: "the claim")
        let candidates = try await routeCandidates()
        progress.stage("routing", "asking \(candidates.count) contact(s) for swap offers")
        let report = await services.router.probe(candidates)
        var skipped = report.skipped.map { RoutePlan.Skip(contact: $0.contact, reason: Self.describe($0.reason)) }
        var best: (provider: ProviderOffer, type: ContractType, claimFee: Int64, result: MaxSendableResult)?
        for provider in report.offers {
            let offer = provider.terms
            guard let type = OfferFeature.contractTypes(in: offer.features).first else {
                skipped.append(RoutePlan.Skip(contact: provider.contact, reason: Self.describe(.onlyRetiredContracts)))
                continue
            }
            let claimFee = ContractSizes.claimFee(type, destination: destinationType, rate: rate)
            progress.stage("quoting", "settling the largest amount with \(provider.contact.name)")
            let quoter = dialQuoter(provider, direction: .lightningToOnchain)
            let result = await MaxSendable(offer: offer, claimFeeSat: claimFee, budgetSat: budgetSat).settle(using: quoter)
            await quoter.close()
            guard let amount = result.amountSat else {
                skipped.append(RoutePlan.Skip(contact: provider.contact, reason: Self.describe(result.outcome)))
                continue
            }
            if amount > best?.result.amountSat ?? 0 { best = (provider, type, claimFee, result) }
        }
        var result: [String: JSONValue] = [
            "balance_sat": .integer(balanceSat), "budget_sat": .integer(budgetSat),
            "routing_reserve_sat": .integer(balanceSat - budgetSat), "candidates": .integer(candidates.count),
            "skipped": .array(skipped.map(\.json)),
        ]
        if let contactName { result["contact"] = .string(contactName) }
        result["source"] = .string("spending")
        guard let best, let amount = best.result.amountSat, let quote = best.result.quote else {
            let plan = RoutePlan(amountSat: 0, ranked: [], skipped: skipped, candidates: candidates.count,
                                 spendingBalanceSat: balanceSat)
            guard budgetSat > 0 else {
                throw ControlError(code: "no_route", message: "the spending balance of \(ClientCommands.grouped(balanceSat)) sat does not cover "
                                   + "the routing reserve of \(ClientCommands.grouped(balanceSat - budgetSat)) sat: nothing can be sent")
            }
            throw ControlError(code: "no_route",
                               message: "no provider can swap any amount from a budget of \(ClientCommands.grouped(budgetSat)) sat (\(plan.whyNoRoute))")
        }
        result["max_sat"] = .integer(amount)
        result["outcome"] = .string(Self.describe(best.result.outcome))
        result["rounds"] = .integer(best.result.rounds)
        result["provider"] = .object(["name": .string(best.provider.contact.name),
                                      "pubky": .string(best.provider.contact.pubky.z32),
                                      "contract_type": .string(best.type.rawValue)])
        result["fees"] = Self.fees(amountSat: amount, serviceFeeSat: quote.serviceFeeSat,
                                   providerOnchainFeeSat: quote.onchainFeeSat, claimFeeSat: best.claimFee,
                                   routingFeeSat: routing.fee(paymentSat: quote.totalSat), invoiceTotalSat: quote.totalSat)
        return .object(result)
    }

    static func describe(_ outcome: MaxSendableResult.Outcome) -> String {
        switch outcome {
        case .settled: return "settled"
        case .atProviderMaximum: return "the provider's maximum"
        case .budgetBelowMinimum: return "the budget is below its minimum amount"
        case .roundsExhausted: return "the best amount found within the round limit"
        case .quoteFailed(let why): return "quoting failed: \(why)"
        }
    }
}

/// Asks one provider for quotes over one connection (dialled on first use), checked by
/// the client's `QuotePolicy` against the offer they answer.
actor DialQuoter: Quoter {
    let provider: ProviderOffer
    let dialer: PeerDialer
    let policy: QuotePolicy
    let clock: any UnixClock
    let timeoutMilliseconds: UInt64
    /// The direction asked for: reverse (`max`), or submarine (`max --from savings`).
    let direction: SwapDirection
    private var connection: PeerConnection?

    init(provider: ProviderOffer, direction: SwapDirection = .lightningToOnchain, dialer: PeerDialer, policy: QuotePolicy,
         clock: any UnixClock, timeoutMilliseconds: UInt64) {
        self.provider = provider
        self.direction = direction
        self.dialer = dialer
        self.policy = policy
        self.clock = clock
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    func quote(amountSat: Int64) async throws -> Quote {
        let contact = provider.contact
        let open: PeerConnection
        if let connection {
            open = connection
        } else {
            open = try await dialer.dial(contact.pubky, host: contact.host, port: Int(contact.port))
            connection = open
        }
        let request = QuoteRequest(requestID: RandomID.make(), offerID: provider.terms.offerID, direction: direction,
                                   amountSat: amountSat)
        let reply = try SwapMessage(bytes: try await open.request(request.encoded, id: request.requestID,
                                                                  timeoutMilliseconds: timeoutMilliseconds))
        switch reply {
        case .quote(let signed):
            return try policy.check(signed, answering: request, provider: contact.pubky, offer: provider.terms,
                                    nowUnix: clock.nowUnix)
        case .reject(let reject):
            throw ClientEngineError.rejected(reject.code, reason: reject.reason)
        default:
            throw ClientEngineError.offers(.unexpectedReply)
        }
    }

    func close() async {
        await connection?.close()
        connection = nil
    }
}

extension ClientCommands {
    /// 1,250,000: amounts in messages read as the CLI prints them.
    static func grouped(_ value: Int64) -> String {
        let digits = Array(String(value.magnitude))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return (value < 0 ? "-" : "") + out
    }
}
