import Bitcoin
import HTLC
import Lightning
import Offers
import Transport

extension ClientCommands {
    /// How long this node's own swap-in invoice stays payable: the provider pays only once
    /// the lock confirms, so it must outlive a slow block or two.
    static let swapInInvoiceExpirySeconds: UInt64 = 86_400

    // MARK: swap-in

    /// `swap-in <sats>`: savings to the spending balance. This node's Lightning node makes
    /// an invoice for X, and the cheapest contact that swaps on-chain to Lightning pays it
    /// against a lock funded from savings.
    func swapIn(amountSat: Int64, options: SwapOptions, progress: CommandProgress) async throws(ControlError) -> JSONValue {
        _ = try submarineEngine()
        var options = options
        options.source = .savings
        let inputs = try await railInputs(payee: .lightningOnly, address: nil, amountSat: amountSat, progress: progress)
        let replan = { (refresh: Bool) async throws(ControlError) -> RailPlan in
            try await self.chooseRail(contact: Self.ownBalance, address: nil, inputs: inputs, amountSat: amountSat, options: options,
                                      progress: progress, refresh: refresh)
        }
        // The route first: no invoice is made for a swap no provider can take.
        let plan = try await replan(false)
        let created = try await swapInInvoice(amountSat: amountSat, nothing: "paid")
        progress.stage("invoice", "this node's invoice for \(Self.grouped(amountSat)) sat (payment hash \(created.paymentHash.hex))")
        var result = try await submarineSwap(invoice: created.paymentRequest, amountSat: amountSat, ownInvoice: true,
                                             firstPlan: plan, progress: progress, replan: replan)
        result["own_invoice"] = .bool(true)
        result["rail"] = Self.railJSON(plan)
        return .object(result)
    }

    /// This node's own invoice for a swap-in of X; `nothing` says what did not happen when
    /// LND makes none ("paid", "quoted").
    func swapInInvoice(amountSat: Int64, nothing: String) async throws(ControlError) -> CreatedInvoice {
        do {
            return try await services.lightning.addInvoice(amountMsat: UInt64(amountSat) * 1_000, memo: "peernode swap-in",
                                                           expirySeconds: Self.swapInInvoiceExpirySeconds, cltvExpiry: 0)
        } catch {
            throw .backend("this node's Lightning node made no invoice: \(error); nothing was \(nothing)")
        }
    }

    /// The payee `swap-in` names in its reason line.
    static let ownBalance = "this node's Lightning balance"

    // MARK: pay, to a contact's invoice

    /// The contact's signed invoice for X (asked through `ContactRequestGate`, checked by
    /// `ContactInvoiceFetcher`: its signature, amount, network and expiry).
    func contactInvoice(_ contact: SavedContact, invoicePubky: Pubky, amountSat: Int64,
                        progress: CommandProgress) async throws(ControlError) -> ContactInvoiceFetcher.Fetched {
        progress.stage("invoice", "asking \(contact.name) for a signed invoice of \(Self.grouped(amountSat)) sat")
        let fetcher = ContactInvoiceFetcher(dialer: services.dialer, network: services.config.network,
                                            timeoutMilliseconds: engine.configuration.requestTimeoutMilliseconds,
                                            nowUnix: { [clock = services.clock] in clock.nowUnix })
        let host = contact.host, port = Int(contact.port)
        let fetched = try await services.contactRequests.run(to: invoicePubky) { () async throws(ControlError) in
            do {
                return try await fetcher.fetch(from: invoicePubky, host: host, port: port, amountMsat: amountSat * 1_000,
                                               description: "peernode pay")
            } catch {
                throw ControlError(code: "not_paid", message: "\(contact.name) gave no invoice that can be paid: \(error); "
                                   + "nothing was paid")
            }
        }
        progress.stage("invoice", "\(contact.name) signed an invoice for \(Self.grouped(amountSat)) sat "
                       + "(payment hash \(fetched.invoice.paymentHash.hex))")
        return fetched
    }

    /// The `submarine_swap` route of `pay`: the contact's invoice, paid by the provider the
    /// plan chose against a lock funded from savings.
    func payLightningContact(_ contact: SavedContact, invoicePubky: Pubky, amountSat: Int64, options: SwapOptions,
                             firstPlan: RailPlan, progress: CommandProgress,
                             replan: @escaping (Bool) async throws(ControlError) -> RailPlan) async throws(ControlError) -> [String: JSONValue] {
        _ = try submarineEngine()
        let fetched = try await contactInvoice(contact, invoicePubky: invoicePubky, amountSat: amountSat, progress: progress)
        return try await submarineSwap(invoice: fetched.bolt11, amountSat: amountSat, ownInvoice: false,
                                       firstPlan: firstPlan, progress: progress, replan: replan)
    }

    /// The `direct_lightning` route of `pay`: the contact's invoice paid from the spending
    /// balance, the routing fee at most the estimate the route was chosen with.
    func payLightningDirect(_ contact: SavedContact, invoice fetched: ContactInvoiceFetcher.Fetched, amountSat: Int64,
                            routingFeeSat: Int64, progress: CommandProgress) async throws(ControlError) -> [String: JSONValue] {
        progress.stage("pay_started", "paying \(contact.name)'s invoice of \(Self.grouped(amountSat)) sat from spending "
                       + "(routing fee at most \(Self.grouped(routingFeeSat)) sat)")
        let payment = DirectLightningPayment(lightning: services.lightning, store: services.store,
                                             nowUnix: { [clock = services.clock] in clock.nowUnix })
        let outcome = try await payment.pay(bolt11: fetched.bolt11, paymentHash: fetched.invoice.paymentHash, amountSat: amountSat,
                                            feeLimitSat: routingFeeSat, contact: contact.name,
                                            contactPubky: contact.pubky.z32) { progress.stage("payment", $0) }
        guard outcome.paid else {
            throw ControlError(code: "not_paid", message: "the Lightning payment to \(contact.name) failed: "
                               + (outcome.record["reason"]?.stringValue ?? "no reason given") + "; nothing was paid")
        }
        progress.stage("completed", "\(contact.name)'s invoice is paid")
        var result = outcome.record
        result["status"] = .string("paid")
        result["route"] = .string("direct_lightning")
        if let after = try? await services.lightning.spendableBalance() {
            result["spending_balance_sat"] = .integer(Int64(clamping: after / 1_000))
        }
        return result
    }

    // MARK: the submarine path

    /// Has `invoice` paid through the provider `firstPlan` chose, or the next one
    /// (`throughSubmarineProviders`). Returns once the invoice is paid, with the preimage
    /// (the proof of payment), the lock total and the lock's fee; throws with where the
    /// funds are otherwise.
    func submarineSwap(invoice: String, amountSat: Int64, ownInvoice: Bool, firstPlan: RailPlan,
                       progress: CommandProgress,
                       replan: (Bool) async throws(ControlError) -> RailPlan) async throws(ControlError) -> [String: JSONValue] {
        let submarine = try submarineEngine()
        let done = try await throughSubmarineProviders(
            invoice: invoice, amountSat: amountSat, ownInvoice: ownInvoice, firstPlan: firstPlan, progress: progress,
            replan: replan) { (_, firm) async throws(ClientEngineError) -> SubmarineClientReport in
            try await submarine.pay(firm: firm) { progress.bind($0) }
        }
        return Self.submarineResult(done.outcome, choice: done.choice, routes: done.ranked, passedOver: done.passedOver)
    }

    /// Gets a quote for `invoice` from the provider of `firstPlan`'s submarine route and runs
    /// `commit` with it. A provider forgets its offers when it restarts, and its
    /// `onchain_to_ln` maximum follows its Lightning balance, so when the chosen one refuses
    /// the cached offer (`ClientEngineError.staleOfferCodes`: before anything is locked)
    /// every contact is asked again, once (`replan(true)`). A provider whose quote fails
    /// otherwise, or that refuses its fresh offer too, is passed over for the next submarine
    /// route among the plan's alternatives (`RouteRetry`), as long as the rail chooser's
    /// best is still a submarine swap (`throughProviders`). Returns the provider that
    /// carried it, the routes it was chosen among and those passed over.
    func throughSubmarineProviders<Outcome>(
        invoice: String, amountSat: Int64, ownInvoice: Bool, firstPlan: RailPlan, progress: CommandProgress,
        replan: (Bool) async throws(ControlError) -> RailPlan,
        commit: (SubmarineCandidate, SubmarineClientFirmQuote) async throws(ClientEngineError) -> Outcome
    ) async throws(ControlError) -> (choice: SubmarineCandidate, ranked: [SubmarineCandidate], passedOver: [Pubky: String],
                                     outcome: Outcome) {
        let submarine = try submarineEngine()
        return try await throughProviders(
            submarineRoutesFailedLast(firstPlan, progress: progress), contact: \.provider.contact, progress: progress,
            askAgain: { () async throws(ControlError) -> [SubmarineCandidate] in
                submarineRoutesFailedLast(try await replan(true), progress: progress)
            },
            noneLeft: {
                ControlError(code: "no_route", message: "no contact swaps \(Self.grouped(amountSat)) sat on-chain to Lightning "
                             + "now; nothing was paid")
            },
            quote: { (choice) async throws(ClientEngineError) -> SubmarineClientFirmQuote in
                let terms = choice.provider.terms.terms(for: .onchainToLightning)
                progress.stage("route", "savings -> Lightning through \(choice.provider.contact.name) "
                               + "(\(choice.provider.contact.pubky.z32)), \(choice.contractType.rawValue) contract: lock "
                               + "\(Self.grouped(choice.lockAmountSat)) sat (fees \(Self.grouped(choice.providerFeeSat)) sat) "
                               + "plus the lock's own fee; the provider pays once the lock has "
                               + "\(terms?.requiredConfirmations ?? 1) confirmation(s)")
                return try await submarine.firmQuote(invoice: invoice, via: choice.provider, contractType: choice.contractType,
                                                     ownInvoice: ownInvoice)
            },
            commit: commit)
    }

    /// The submarine routes of `plan`, best first, while its best is one (none otherwise: the
    /// rail chooser prefers another rail now), with the providers that failed a quote
    /// lately ranked last (`QuoteFailures`).
    private func submarineRoutesFailedLast(_ plan: RailPlan, progress: CommandProgress) -> [SubmarineCandidate] {
        guard plan.route.kind == .submarineSwap else { return [] }
        let routes = ([plan.route] + plan.alternatives).compactMap { route -> SubmarineCandidate? in
            if case .submarineSwap(let candidate) = route { candidate } else { nil }
        }
        return triedLast(routes, contact: \.provider.contact, progress: progress)
    }

    /// The report, the provider, the other submarine routes left (`alternatives`) and the
    /// providers passed over (`skipped`, with why), among `routes`.
    private static func submarineResult(_ report: SubmarineClientReport, choice: SubmarineCandidate,
                                        routes: [SubmarineCandidate], passedOver: [Pubky: String]) -> [String: JSONValue] {
        var result = report.json
        let chosen = choice.provider.contact.pubky
        result["provider"] = RoutePlan.providerJSON(choice.provider.contact, contractType: choice.contractType)
        result["alternatives"] = .array(routes.compactMap { other -> JSONValue? in
            let contact = other.provider.contact
            guard contact.pubky != chosen, passedOver[contact.pubky] == nil else { return nil }
            return .object(["contact": .string(contact.name), "pubky": .string(contact.pubky.z32),
                            "fees_total_sat": .integer(other.totalCostSat)])
        })
        result["skipped"] = skippedJSON(routes, passedOver: passedOver)
        return result
    }

    /// The providers of `routes` passed over, with why, as `skipped` lists them.
    static func skippedJSON(_ routes: [SubmarineCandidate], passedOver: [Pubky: String]) -> JSONValue {
        .array(routes.compactMap { other -> JSONValue? in
            let contact = other.provider.contact
            guard let reason = passedOver[contact.pubky] else { return nil }
            return RoutePlan.Skip(contact: contact, reason: reason).json
        })
    }

    func submarineEngine() throws(ControlError) -> SubmarineClientEngine {
        guard let submarine else {
            throw .notAvailable("submarine swaps (savings -> Lightning) are not wired into this daemon")
        }
        return submarine
    }
}
