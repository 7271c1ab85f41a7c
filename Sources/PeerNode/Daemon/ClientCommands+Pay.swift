import Bitcoin
import HTLC
import Offers
import Transport

extension ClientCommands {
    // MARK: pay

    /// `pay <contact> <sats>` (docs/ROUTING.md): the contact's endpoints (an on-chain
    /// address, Lightning) and the wallet's balances (savings, spending) decide the route
    /// (`RailChooser`): directly on a rail the wallet holds and the contact takes (an
    /// on-chain send, or the contact's signed invoice paid on Lightning), else the cheapest
    /// swap among the contacts' providers (reverse to an address, submarine to an invoice).
    /// `--from` forces the balance; `--contract-type` asks for a swap with that contract;
    /// `--quote` commits a quote `quote` fetched earlier.
    func pay(contact which: String, amountSat: Int64, options: SwapOptions,
             progress: CommandProgress) async throws(ControlError) -> JSONValue {
        let contact = try await savedContact(which)
        if let quoteID = options.quoteID {
            return try await payQuoted(quoteID, contact: contact, amountSat: amountSat, options: options, progress: progress)
        }
        progress.stage("endpoints", "asking \(contact.name) for its endpoints")
        let rails = try await contactRails(of: contact)
        try rails.requireARail(contact: contact.name, network: services.config.network)
        progress.stage("endpoints", rails.summary(contact: contact.name, network: services.config.network))
        return .object(try await pay(contact, over: rails, amountSat: amountSat, options: options, progress: progress))
    }

    /// `pay` once the contact's rails are known. When the contact gives no invoice for a
    /// direct Lightning payment (its node is down, it refuses), nothing has moved: the
    /// payment is chosen again among the on-chain routes if the contact takes on-chain.
    private func pay(_ contact: SavedContact, over rails: ContactRails, amountSat: Int64, options: SwapOptions,
                     progress: CommandProgress) async throws(ControlError) -> [String: JSONValue] {
        let (inputs, plan) = try await planRoute(contact: contact.name, rails: rails, amountSat: amountSat, options: options,
                                                 progress: progress)
        var result: [String: JSONValue]
        switch plan.route {
        case .directOnchain:
            guard let address = rails.onchain else { throw .failed("the route needs an address \(contact.name) did not give") }
            result = try await payDirect(address, amountSat: amountSat, contact: contact, progress: progress)
        case .directLightning(let routingFee):
            guard let pubky = rails.lightning else { throw .failed("the route needs Lightning, which \(contact.name) does not take") }
            let fetched: ContactInvoiceFetcher.Fetched
            do {
                fetched = try await contactInvoice(contact, invoicePubky: pubky, amountSat: amountSat, progress: progress)
            } catch {
                guard rails.onchain != nil else { throw error }
                progress.stage("route", "\(error.message); choosing again among the on-chain routes")
                return try await pay(contact, over: rails.onchainOnly, amountSat: amountSat, options: options, progress: progress)
            }
            result = try await payLightningDirect(contact, invoice: fetched, amountSat: amountSat, routingFeeSat: routingFee,
                                                  progress: progress)
        case .reverseSwap:
            guard let address = rails.onchain else { throw .failed("the route needs an address \(contact.name) did not give") }
            progress.stage("endpoints", "\(contact.name) receives at \(address.encoded(for: services.config.network))")
            result = try await swap(amountSat: amountSat, destination: address, purpose: .payContact,
                                    contractType: options.contractType, progress: progress, maxFeeSat: options.maxFeeSat)
        case .submarineSwap:
            guard let pubky = rails.lightning else { throw .failed("the route needs Lightning, which \(contact.name) does not take") }
            result = try await payLightningContact(contact, invoicePubky: pubky, amountSat: amountSat, options: options,
                                                   firstPlan: plan, progress: progress) { (refresh) async throws(ControlError) in
                try await self.chooseRail(contact: contact.name, address: rails.onchain, inputs: inputs, amountSat: amountSat,
                                          options: options, progress: progress, refresh: refresh)
            }
        }
        result["contact"] = .string(contact.name)
        result["contact_pubky"] = .string(contact.pubky.z32)
        result["rail"] = Self.railJSON(plan)
        return result
    }

    /// Sends X from the wallet at the estimated rate. The chooser saw the savings cover X
    /// and the fee; coins spent since (another command) make this refuse with nothing sent.
    private func payDirect(_ destination: Address, amountSat: Int64, contact: SavedContact,
                           progress: CommandProgress) async throws(ControlError) -> [String: JSONValue] {
        let wallet = services.wallet
        let encoded = destination.encoded(for: services.config.network)
        let rate = try await feeRate(target: Self.directSendTarget, purpose: "an on-chain payment")
        do {
            // Coin selection adds the fee at this rate: it fails when X + fee is not covered.
            let sent = try await wallet.send(to: destination, amount: amountSat, feeRate: rate)
            progress.stage("broadcast", "sent \(Self.grouped(amountSat)) sat from savings in \(sent.txid.hex)")
            var result: [String: JSONValue] = [
                "status": .string("sent"), "route": .string("direct"), "settlement": .string("settling"),
                "contact": .string(contact.name), "contact_pubky": .string(contact.pubky.z32),
                "destination": .string(encoded), "amount_sat": .integer(amountSat), "txid": .string(sent.txid.hex),
                "fee_rate_sat_kvb": .integer(rate.satPerKvB), "vsize": .integer(sent.virtualSize),
            ]
            if let fee = sent.fee {
                result["onchain_fee_sat"] = .integer(fee)
                result["total_sat"] = .integer(amountSat + fee)
            }
            // `swaps` lists it beside the swaps. The money is out whatever happens here, so a
            // store failure is logged, not reported as a failed payment.
            var record = result
            record["at"] = .integer(Int64(clamping: services.clock.nowUnix))
            do {
                try await DirectPayments.record(.object(record), in: services.store)
            } catch {
                progress.stage("note", "the payment is sent but could not be listed in `swaps`: \(error)")
            }
            return result
        } catch .insufficientFunds(let needed, _) {
            throw ControlError(code: "insufficient_funds",
                               message: "on-chain savings no longer cover \(Self.grouped(amountSat)) sat plus its fee "
                                   + "(\(Self.grouped(needed)) sat needed); nothing was paid")
        } catch .backend(let error) {
            // The broadcast failed: the wallet keeps nothing of a transaction the chain refused.
            throw .backend("the on-chain payment could not be broadcast: \(error); nothing was paid")
        } catch {
            throw .failed("the on-chain payment could not be made: \(error); nothing was paid")
        }
    }

    // MARK: swap-out

    /// `swap-out <sats> [--to address]`: a swap whose destination is the wallet's own
    /// fresh address, or the address given.
    func swapOut(amountSat: Int64, address: String?, options: SwapOptions,
                 progress: CommandProgress) async throws(ControlError) -> JSONValue {
        let network = services.config.network
        let destination: Address
        if let address {
            do {
                destination = try Address(address, network: network)
            } catch {
                throw .invalidRequest("swap-out: \"\(address)\" is not a \(network.rawValue) address: \(error)")
            }
        } else {
            destination = await services.wallet.newAddress().address
        }
        progress.stage("route", "swapping \(Self.grouped(amountSat)) sat out to \(destination.encoded(for: network))"
                       + (address == nil ? " (this node's wallet)" : ""))
        var result = try await swap(amountSat: amountSat, destination: destination, purpose: .swapOut,
                                    contractType: options.contractType, progress: progress, maxFeeSat: options.maxFeeSat)
        result["own_wallet"] = .bool(address == nil)
        return .object(result)
    }

    // MARK: the swap path

    /// Routes and pays X to `destination` through the chosen provider. Returns once the
    /// claim is broadcast; throws with what happened to the funds otherwise.
    func swap(amountSat: Int64, destination: Address, purpose: ClaimPurpose, contractType: ContractType?,
              progress: CommandProgress, maxFeeSat: Int64? = nil) async throws(ControlError) -> [String: JSONValue] {
        let destinationType = try Self.destinationType(destination)
        let (plan, report) = try await throughRankedProviders(
            amountSat: amountSat, destinationType: destinationType, contractType: contractType, progress: progress,
            maxFeeSat: maxFeeSat,
            quote: { (choice) async throws(ClientEngineError) -> ClientFirmQuote in
                progress.stage("route", "through \(choice.provider.contact.name) (\(choice.provider.contact.pubky.z32)), "
                               + "\(choice.contractType.rawValue) contract: "
                               + "\(Self.grouped(choice.invoiceTotalSat)) sat invoice, \(Self.grouped(choice.totalCostSat)) sat in fees")
                return try await engine.firmQuote(destinationType: destinationType, amountSat: amountSat, via: choice.provider,
                                                  contractType: choice.contractType)
            },
            commit: { (_, firm) async throws(ClientEngineError) -> ClientPayReport in
                try await engine.pay(destination: destination, firm: firm, purpose: purpose) { progress.bind($0) }
            })
        var result = plan.json
        for (key, value) in Self.sent(report) { result[key] = value }
        // The balance the route was chosen from is the one before paying; the result says
        // what is left (issue 14), and keeps the first as `spending_balance_before_sat`.
        if let before = result["spending_balance_sat"] { result["spending_balance_before_sat"] = before }
        if let after = try? await services.lightning.spendableBalance() {
            result["spending_balance_sat"] = .integer(Int64(clamping: after / 1_000))
        }
        return result
    }

    /// What a swap that is out reports: its id, claim and the engine's figures (not the
    /// plan's: the claim fee is re-estimated when quoting).
    static func sent(_ report: ClientPayReport) -> [String: JSONValue] {
        var result: [String: JSONValue] = [
            "status": .string("sent"), "route": .string("swap"),
            "settlement": .string(report.settlement == .confirmed ? "confirmed" : "settling"),
            "swap_id": .string(report.swapID), "destination": .string(report.destination),
            "claim_txid": .string(report.claimTxid.hex),
            "fees": fees(amountSat: report.amountSat, serviceFeeSat: report.serviceFeeSat,
                         providerOnchainFeeSat: report.providerOnchainFeeSat, claimFeeSat: report.claimFeeSat,
                         routingFeeSat: report.routingFeeLimitSat, invoiceTotalSat: report.invoiceTotalSat),
            "amount_sat": .integer(report.amountSat),
            // Issue 17: the key path (co-signed) or the script path, and what the key path
            // saved: bytes, and for a swap-out the sat that reached the wallet.
            "claim_path": .string(report.claimSpend.path.rawValue),
            "claim_vsize_vb": .integer(report.claimSpend.virtualSize),
            "claim_fee_paid_sat": .integer(report.claimSpend.feeSat),
            "claim_saved_vb": .integer(report.claimSpend.savedVirtualBytes),
            "claim_saved_sat": .integer(report.claimSpend.savedSat),
        ]
        if let fallback = report.claimSpend.fallback { result["cooperation_fallback"] = .string(fallback) }
        return result
    }

    /// Routes X, gets the chosen provider's quote and commits it. A provider keeps its
    /// offers in memory, so after a restart it refuses a cached one with `not_found`, and an
    /// offer's maximum is the balance the provider had when it made it, so a cached one may
    /// promise more than it holds now (`insufficient_liquidity`): on such a refusal every
    /// contact is asked again, once. A provider whose quote fails otherwise, or that refuses
    /// its fresh offer too, is passed over for the next one (`RouteRetry`). The plan
    /// returned lists the providers passed over among the skipped.
    func throughRankedProviders<Firm, Outcome>(
        amountSat: Int64, destinationType: DestinationType, contractType: ContractType?, progress: CommandProgress,
        maxFeeSat: Int64? = nil, quote: (RouteCandidate) async throws(ClientEngineError) -> Firm,
        commit: (RouteCandidate, Firm) async throws(ClientEngineError) -> Outcome
    ) async throws(ControlError) -> (RoutePlan, Outcome) {
        // The route, with the providers that failed a quote lately ranked last.
        func plan(refresh: Bool) async throws(ControlError) -> RoutePlan {
            let plan = try await route(amountSat: amountSat, destinationType: destinationType, contractType: contractType,
                                       progress: progress, refresh: refresh, maxFeeSat: maxFeeSat)
            return plan.replacing(ranked: triedLast(plan.ranked, contact: \.provider.contact, progress: progress))
        }
        var current = try await plan(refresh: false)
        let done = try await throughProviders(
            current.ranked, contact: \.provider.contact, progress: progress,
            askAgain: { () async throws(ControlError) -> [RouteCandidate] in
                current = try await plan(refresh: true)
                return current.ranked
            },
            noneLeft: { current.noRouteError }, quote: quote, commit: commit)
        return (current.passingOver(done.passedOver), done.outcome)
    }

    /// The router's decision for X, narrowed to the providers the spending balance can pay.
    /// `refresh` asks every contact again instead of using cached offers.
    func route(amountSat: Int64, destinationType: DestinationType, contractType: ContractType? = nil,
               progress: CommandProgress, refresh: Bool = false, maxFeeSat: Int64? = nil) async throws(ControlError) -> RoutePlan {
        let rate: FeeRate
        do {
            rate = try await services.feeEstimator.feeRate(targetBlocks: engine.configuration.claimFeeTargetBlocks)
        } catch {
            throw .backend("no fee estimate for the claim: \(error); nothing was paid")
        }
        let candidates = try await routeCandidates()
        let discovery = await services.discovery(for: candidates)
        progress.stage("routing", "asking \(candidates.count) contact(s) for swap offers"
                       + (contractType.map { " with a \($0.rawValue) contract" } ?? "")
                       + (discovery.published.isEmpty ? "" : " (\(discovery.published.count) publish a capability descriptor)"))
        let selector = RouteSelector(amountSat: amountSat, destination: destinationType, claimFeeRate: rate,
                                     routingFee: engine.configuration.routingFee, contractType: contractType,
                                     claimPolicy: engine.configuration.claimPolicy)
        let decision = await services.router.route(selector, contacts: candidates, refresh: refresh,
                                                   published: discovery.published, probeUnpublished: discovery.probeUnpublished,
                                                   unpublishedReasons: discovery.reasons)
        progress.stage("routing", Self.discoveryLine(
            candidates: candidates.count, fromDescriptors: decision.fromDescriptors, probed: decision.probed,
            heldBack: decision.heldBack, skippedUnpublished: decision.skipped.filter { if case .noDescriptor = $0.reason { true } else { false } }.count))
        var balanceSat: Int64?
        do {
            balanceSat = Int64(clamping: try await services.lightning.spendableBalance() / 1_000)
        } catch {
            // The payment itself is the authority; the engine re-reads it before committing.
            progress.stage("routing", "the spending balance could not be read (\(error)); choosing by cost alone")
        }
        var fitting: [RouteCandidate] = []
        var skipped = decision.skipped.map { RoutePlan.Skip(contact: $0.contact, reason: Self.describe($0.reason)) }
        let policy = engine.configuration.quotePolicy
        for candidate in decision.ranked {
            // The engine refuses a quote above this; choosing such a provider would only fail later.
            let providerFee = candidate.serviceFeeSat + candidate.providerOnchainFeeSat
            let maximum = policy.maximumFee(amountSat: candidate.lockAmountSat)
            if let maxFeeSat, candidate.totalCostSat > maxFeeSat {
                // The user's own cap for this command (`--max-fee`): every fee, routing included.
                skipped.append(RoutePlan.Skip(contact: candidate.provider.contact,
                                              reason: "its fees come to at most \(Self.grouped(candidate.totalCostSat)) sat, "
                                                + "above --max-fee \(Self.grouped(maxFeeSat)) sat"))
            } else if providerFee > maximum {
                skipped.append(RoutePlan.Skip(contact: candidate.provider.contact,
                                              reason: "charges \(Self.grouped(providerFee)) sat in fees, above this node's maximum of "
                                                + "\(Self.grouped(maximum)) sat (\(Self.percent(ppm: policy.maxFeePPM)) of the "
                                                + "\(Self.grouped(candidate.lockAmountSat)) sat it would lock)"))
            } else if let balanceSat, candidate.spendSat > balanceSat {
                skipped.append(RoutePlan.Skip(contact: candidate.provider.contact,
                                              reason: "needs \(Self.grouped(candidate.spendSat)) sat of spending funds, "
                                                + "the balance is \(Self.grouped(balanceSat)) sat"))
            } else {
                fitting.append(candidate)
            }
        }
        // The quote binds, the descriptor only ranks: the first fitting provider ranked from
        // its descriptor is asked alone for its signed offer, and skipped when that costs more.
        while let first = fitting.first, first.provider.fromDescriptor {
            progress.stage("routing", "\(first.provider.contact.name) was ranked from its published descriptor; "
                           + "asking it alone for its signed offer")
            switch await services.router.confirm(first, price: selector.price) {
            case .success(let confirmed):
                fitting[0] = confirmed
            case .failure(let reason):
                fitting.removeFirst()
                skipped.append(RoutePlan.Skip(contact: first.provider.contact, reason: Self.describe(reason)))
            }
        }
        // As in `chooseRail`: cached offers that carry no route are asked for again first.
        if fitting.isEmpty, !refresh, decision.fromCache + decision.heldBack > 0 {
            progress.stage("routing", Self.askingAgainLine(cached: decision.fromCache, heldBack: decision.heldBack))
            return try await route(amountSat: amountSat, destinationType: destinationType, contractType: contractType,
                                   progress: progress, refresh: true, maxFeeSat: maxFeeSat)
        }
        for skip in skipped { progress.stage("routing", "skipped \(skip.contact.name): \(skip.reason)") }
        return RoutePlan(amountSat: amountSat, ranked: fitting, skipped: skipped, candidates: candidates.count,
                         spendingBalanceSat: balanceSat, contractType: contractType)
    }

    // MARK: helpers

    /// The progress line of a route asked for again because the cached offers carry none,
    /// or contacts were not asked because of their last answer.
    static func askingAgainLine(cached: Int, heldBack: Int = 0) -> String {
        let held = heldBack == 0 ? "" : " nor \(heldBack) contact(s) not asked since their last answer (none in time, or no provider)"
        return "no route through the \(cached) cached offer(s)\(held); asking the contacts for fresh ones (balances move)"
    }

    /// `2.5%` for 25,000 ppm.
    static func percent(ppm: Int64) -> String {
        let tenths = ppm / 1_000
        return tenths % 10 == 0 ? "\(tenths / 10)%" : "\(tenths / 10).\(tenths % 10)%"
    }

    /// A node without a provider answers OfferRequest with a Reject `not_found`: say so.
    static func describe(_ reason: SkipReason) -> String {
        if case .rejected(.notFound) = reason { return "runs no provider (it answered not_found)" }
        return reason.description
    }

    /// `NodeServices.routeCandidates`, its store failure as a control error.
    func routeCandidates() async throws(ControlError) -> [Offers.Contact] {
        do {
            return try await services.routeCandidates()
        } catch {
            throw .failed("the contacts cannot be read: \(error); nothing was paid")
        }
    }

    /// A saved contact by name, or by pubky in any form `Pubky(parsing:)` reads.
    func savedContact(_ which: String) async throws(ControlError) -> SavedContact {
        do {
            if let contact = try await services.findContact(which) { return contact }
        } catch {
            throw .failed("the contacts cannot be read: \(error); nothing was paid")
        }
        throw .notFound("no contact named or with pubky \"\(which)\"; add one with `peernode contacts add`")
    }

    /// The contact's on-chain address on this node's network, asked over the transport (a
    /// few at a time per contact: `ContactRequestGate`).
    func onchainAddress(of contact: SavedContact) async throws(ControlError) -> Address {
        let rails = try await contactRails(of: contact)
        guard let address = rails.onchain else {
            let network = services.config.network
            throw .failed("\(contact.name) offers no on-chain address on \(network.rawValue) that can be paid"
                          + (rails.offered.isEmpty ? "" : " (it offers: \(rails.offered.joined(separator: ", ")))")
                          + "; nothing was paid")
        }
        return address
    }

    /// What the contact takes (on-chain, Lightning), asked over the transport (a few at a
    /// time per contact: `ContactRequestGate`).
    func contactRails(of contact: SavedContact) async throws(ControlError) -> ContactRails {
        try await services.contactRequests.run(to: contact.nodeKey) { () async throws(ControlError) -> ContactRails in
            try await askEndpoints(of: contact)
        }
    }

    private func askEndpoints(of contact: SavedContact) async throws(ControlError) -> ContactRails {
        let network = services.config.network
        let connection: PeerConnection
        do {
            connection = try await services.dialer.dial(contact.nodeKey, host: contact.host, port: Int(contact.port))
        } catch {
            throw .backend("\(contact.name) cannot be reached at \(contact.host):\(contact.port) to ask for its address: "
                           + "\(error); nothing was paid")
        }
        let request = EndpointsRequest(requestID: RandomID.make())
        let reply: SwapMessage
        do {
            let bytes = try await connection.request(request.encoded, id: request.requestID,
                                                     timeoutMilliseconds: engine.configuration.requestTimeoutMilliseconds)
            reply = try SwapMessage(bytes: bytes)
        } catch {
            await connection.close()
            throw .backend("\(contact.name) did not answer with its address: \(error); nothing was paid")
        }
        await connection.close()
        switch reply {
        case .endpoints(let endpoints):
            return ContactRails(endpoints: endpoints.endpoints, network: network)
        case .reject(let reject):
            throw .failed("\(contact.name) refused to give an address (\(reject.code)); nothing was paid")
        default:
            throw .failed("\(contact.name) answered the address request with something else; nothing was paid")
        }
    }

    static func destinationType(_ address: Address) throws(ControlError) -> DestinationType {
        do {
            return try DestinationType(address: address)
        } catch {
            throw .invalidRequest("a claim cannot pay this kind of address: \(error)")
        }
    }

    /// A held quote's breakdown, as `pay --quote` will charge it.
    static func fees(_ firm: ClientFirmQuote, routingFee: RoutingFeeEstimate) -> JSONValue {
        fees(amountSat: firm.amountSat, serviceFeeSat: firm.quote.serviceFeeSat, providerOnchainFeeSat: firm.quote.onchainFeeSat,
             claimFeeSat: firm.claimFeeSat, routingFeeSat: routingFee.fee(paymentSat: firm.quote.totalSat),
             invoiceTotalSat: firm.quote.totalSat)
    }

    /// The code of a provider's refusal of an expired quote, as the control API reports it.
    static let quoteExpiredCode = RejectCode.quoteExpired.rawValue

    static func fees(amountSat: Int64, serviceFeeSat: Int64, providerOnchainFeeSat: Int64, claimFeeSat: Int64,
                     routingFeeSat: Int64, invoiceTotalSat: Int64) -> JSONValue {
        .object([
            "amount_sat": .integer(amountSat), "service_fee_sat": .integer(serviceFeeSat),
            "provider_onchain_fee_sat": .integer(providerOnchainFeeSat), "claim_fee_sat": .integer(claimFeeSat),
            "routing_fee_max_sat": .integer(routingFeeSat), "invoice_total_sat": .integer(invoiceTotalSat),
            "fees_total_sat": .integer(serviceFeeSat + providerOnchainFeeSat + claimFeeSat + routingFeeSat),
            "spend_max_sat": .integer(invoiceTotalSat + routingFeeSat),
        ])
    }

    /// The engine's error as the control API reports it: every message says where the
    /// funds are ("nothing was paid", the payment returned or is held, ...).
    static func controlError(_ error: ClientEngineError) -> ControlError {
        switch error {
        case .swapEnded(let id, let outcome):
            return ControlError(code: "swap_failed",
                                message: "swap \(id) ended without delivering: \(outcome.reason). "
                                    + "Funds: \(outcome.funds) (\(outcome.funds.rawValue))")
        case .store, .corruptRecord:
            return ControlError(code: "swap_stopped", message: error.description)
        case .rejected(.quoteExpired, _):
            return ControlError(code: quoteExpiredCode, message: error.description)
        case .paymentHashReused:
            return ControlError(code: RecoveryRequiredError.code, message: error.description)
        case .submarineEnded(let id, let outcome):
            return ControlError(code: "swap_failed",
                                message: "swap \(id) ended without the invoice paid: \(outcome.reason). "
                                    + "Funds: \(outcome.funds) (\(outcome.funds.rawValue))")
        case .rejected, .offers, .provider, .insufficientBalance, .unsupportedDestination, .feeEstimate, .claimNotViable,
             .insufficientSavings, .invoiceAlreadyUsed:
            return ControlError(code: "not_paid", message: error.description)
        }
    }
}

/// The router's answer for one command: candidates that fit, best first, and every
/// contact left out with its reason.
struct RoutePlan: Sendable {
    struct Skip: Sendable {
        let contact: Offers.Contact
        let reason: String

        var json: JSONValue {
            .object(["contact": .string(contact.name), "pubky": .string(contact.pubky.z32), "reason": .string(reason)])
        }
    }

    let amountSat: Int64
    let ranked: [RouteCandidate]
    let skipped: [Skip]
    let candidates: Int
    let spendingBalanceSat: Int64?
    /// The contract type asked for, when one was.
    var contractType: ContractType?

    var choice: RouteCandidate? { ranked.first }

    /// This plan with `ranked` in place of its ranking and, when given, `skipped` of its skips.
    func replacing(ranked: [RouteCandidate], skipped: [Skip]? = nil) -> RoutePlan {
        RoutePlan(amountSat: amountSat, ranked: ranked, skipped: skipped ?? self.skipped, candidates: candidates,
                  spendingBalanceSat: spendingBalanceSat, contractType: contractType)
    }

    /// This plan without the candidates of the providers in `passedOver`, each listed among
    /// the skipped with its reason.
    func passingOver(_ passedOver: [Pubky: String]) -> RoutePlan {
        guard !passedOver.isEmpty else { return self }
        var kept: [RouteCandidate] = [], gone: [Skip] = []
        for candidate in ranked {
            let contact = candidate.provider.contact
            if let reason = passedOver[contact.pubky] {
                gone.append(Skip(contact: contact, reason: reason))
            } else {
                kept.append(candidate)
            }
        }
        return replacing(ranked: kept, skipped: skipped + gone)
    }

    /// Why there is no route: no contacts, none runs a provider, or each one's reason.
    var whyNoRoute: String {
        let why = skipped.map { "\($0.contact.name): \($0.reason)" }
        if candidates == 0 { return "there are no contacts to route through; add a provider with `peernode contacts add`" }
        if why.isEmpty { return "none of \(candidates) contact(s) runs a provider" }
        return "skipped " + why.joined(separator: "; ")
    }

    var noRouteError: ControlError {
        let what = contractType.map { "with a \($0.rawValue) contract " } ?? ""
        return ControlError(code: "no_route", message: "no provider can swap \(ClientCommands.grouped(amountSat)) sat \(what)(\(whyNoRoute)); nothing was paid")
    }

    /// The provider a swap goes through, and its contract type.
    static func providerJSON(_ contact: Offers.Contact, contractType: ContractType) -> JSONValue {
        .object(["name": .string(contact.name), "pubky": .string(contact.pubky.z32),
                 "address": .string("\(contact.host):\(contact.port)"), "contract_type": .string(contractType.rawValue)])
    }

    var json: [String: JSONValue] {
        var result: [String: JSONValue] = [
            "candidates": .integer(candidates),
            "skipped": .array(skipped.map(\.json)),
            "alternatives": .array(ranked.dropFirst().map { candidate in
                .object(["contact": .string(candidate.provider.contact.name),
                         "pubky": .string(candidate.provider.contact.pubky.z32),
                         "fees_total_sat": .integer(candidate.totalCostSat)])
            }),
        ]
        if let spendingBalanceSat { result["spending_balance_sat"] = .integer(spendingBalanceSat) }
        if let contractType { result["contract_type_asked"] = .string(contractType.rawValue) }
        if let choice {
            result["provider"] = Self.providerJSON(choice.provider.contact, contractType: choice.contractType)
            result["fees"] = ClientCommands.fees(amountSat: choice.amountSat, serviceFeeSat: choice.serviceFeeSat,
                                                 providerOnchainFeeSat: choice.providerOnchainFeeSat,
                                                 claimFeeSat: choice.claimFeeSat, routingFeeSat: choice.routingFeeSat,
                                                 invoiceTotalSat: choice.invoiceTotalSat)
        }
        return result
    }
}
