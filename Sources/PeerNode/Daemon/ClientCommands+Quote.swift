import Bitcoin
import HTLC
import Lightning
import Offers
import Transport

extension ClientCommands {
    // MARK: quote

    /// `quote <sats> [--contact] [--from] [--contract-type]`: the route `pay` would take,
    /// without paying. For a swap, the chosen provider's signed quote with its id and
    /// expiry (`pay --quote <id>` commits it); for a direct route, its fee. Without a
    /// contact: a swap-out quote, or with `--from savings` a swap-in quote.
    func quote(amountSat: Int64, contact which: String?, options: SwapOptions,
               progress: CommandProgress) async throws(ControlError) -> JSONValue {
        guard let which else {
            if options.source == .savings { return try await swapInQuote(amountSat: amountSat, options: options, progress: progress) }
            // Swap-out to this node's wallet, whose addresses are Taproot.
            var result = try await reverseQuote(amountSat: amountSat, destination: nil, contact: nil, options: options,
                                                progress: progress)
            result["destination_type"] = .string(DestinationType.p2tr.rawValue)
            return .object(result)
        }
        let contact = try await savedContact(which)
        progress.stage("endpoints", "asking \(contact.name) for its endpoints")
        let rails = try await contactRails(of: contact)
        try rails.requireARail(contact: contact.name, network: services.config.network)
        let (inputs, plan) = try await planRoute(contact: contact.name, rails: rails, amountSat: amountSat, options: options,
                                                 progress: progress)
        var result: [String: JSONValue]
        switch plan.route {
        case .directOnchain(let fee):
            result = ["amount_sat": .integer(amountSat), "onchain_fee_sat": .integer(fee), "total_sat": .integer(amountSat + fee),
                      "fees": Self.directFees(amountSat: amountSat, feeSat: fee)]
        case .directLightning(let fee):
            result = ["amount_sat": .integer(amountSat), "routing_fee_max_sat": .integer(fee),
                      "fees": Self.directFees(amountSat: amountSat, feeSat: fee)]
        case .reverseSwap:
            guard let destination = rails.onchain else { throw .failed("the route needs an address \(contact.name) did not give") }
            result = try await reverseQuote(amountSat: amountSat, destination: destination, contact: contact, options: options,
                                            progress: progress)
        case .submarineSwap:
            guard let pubky = rails.lightning else { throw .failed("the route needs Lightning, which \(contact.name) does not take") }
            let fetched = try await contactInvoice(contact, invoicePubky: pubky, amountSat: amountSat, progress: progress)
            result = try await submarineQuote(invoice: fetched.bolt11, amountSat: amountSat, plan: plan, ownInvoice: false,
                                              contact: contact.name, progress: progress) { (refresh) async throws(ControlError) in
                try await self.chooseRail(contact: contact.name, address: rails.onchain, inputs: inputs, amountSat: amountSat,
                                          options: options, progress: progress, refresh: refresh)
            }
        }
        result["contact"] = .string(contact.name)
        if let address = rails.onchain { result["destination"] = .string(address.encoded(for: services.config.network)) }
        result["savings_sat"] = .integer(inputs.savingsSat)
        result["spending_sat"] = .integer(inputs.spendingSat)
        result["rail"] = Self.railJSON(plan)
        return .object(result)
    }

    /// A reverse swap's quote from the cheapest provider for X to `destination` (nil: this
    /// node's wallet), held for `pay --quote` when it is for a contact.
    private func reverseQuote(amountSat: Int64, destination: Address?, contact: SavedContact?, options: SwapOptions,
                              progress: CommandProgress) async throws(ControlError) -> [String: JSONValue] {
        let destinationType = try destination.map(Self.destinationType) ?? .p2tr
        let (plan, firm) = try await throughRankedProviders(
            amountSat: amountSat, destinationType: destinationType, contractType: options.contractType, progress: progress,
            maxFeeSat: options.maxFeeSat,
            quote: { (choice) async throws(ClientEngineError) -> ClientFirmQuote in
                try await engine.firmQuote(destinationType: destinationType, amountSat: amountSat, via: choice.provider,
                                           contractType: choice.contractType)
            },
            commit: { (_, firm) async throws(ClientEngineError) -> ClientFirmQuote in firm })
        let now = services.clock.nowUnix
        heldQuotes.hold(HeldQuotes.Entry(firm: .reverse(firm, destination: destination), contact: contact?.name), nowUnix: now)
        var result = plan.json
        result["amount_sat"] = .integer(amountSat)
        for (key, value) in Self.validity(quoteID: firm.quoteID, validUntilUnix: firm.quote.validUntilUnix, now: now) {
            result[key] = value
        }
        // The provider's figures, as `pay --quote` will charge them.
        result["fees"] = Self.fees(firm, routingFee: engine.configuration.routingFee)
        return result
    }

    /// `quote --from savings` without a contact: the swap-in's route and quote, bound to
    /// an invoice of this node's made now (it expires unpaid if the quote is not committed).
    private func swapInQuote(amountSat: Int64, options: SwapOptions,
                             progress: CommandProgress) async throws(ControlError) -> JSONValue {
        _ = try submarineEngine()
        let inputs = try await railInputs(payee: .lightningOnly, address: nil, amountSat: amountSat, progress: progress)
        let plan = try await chooseRail(contact: Self.ownBalance, address: nil, inputs: inputs, amountSat: amountSat,
                                        options: options, progress: progress)
        progress.stage("route", plan.reason)
        guard plan.route.kind == .submarineSwap else {
            throw ControlError(code: "no_route", message: "a swap-in needs a provider: \(plan.reason)")
        }
        let created = try await swapInInvoice(amountSat: amountSat, nothing: "quoted")
        var result = try await submarineQuote(invoice: created.paymentRequest, amountSat: amountSat, plan: plan, ownInvoice: true,
                                              contact: nil, progress: progress) { (refresh) async throws(ControlError) in
            try await self.chooseRail(contact: Self.ownBalance, address: nil, inputs: inputs, amountSat: amountSat,
                                      options: options, progress: progress, refresh: refresh)
        }
        result["savings_sat"] = .integer(inputs.savingsSat)
        result["rail"] = Self.railJSON(plan)
        return .object(result)
    }

    /// An `onchain_to_ln` quote for `invoice` from `plan`'s submarine provider, or the next
    /// one (`throughSubmarineProviders`), held for `pay --quote`.
    private func submarineQuote(invoice: String, amountSat: Int64, plan: RailPlan, ownInvoice: Bool, contact: String?,
                                progress: CommandProgress,
                                replan: (Bool) async throws(ControlError) -> RailPlan) async throws(ControlError) -> [String: JSONValue] {
        let done = try await throughSubmarineProviders(
            invoice: invoice, amountSat: amountSat, ownInvoice: ownInvoice, firstPlan: plan, progress: progress,
            replan: replan) { (_, firm) async throws(ClientEngineError) -> SubmarineClientFirmQuote in firm }
        let (candidate, firm) = (done.choice, done.outcome)
        let now = services.clock.nowUnix
        heldQuotes.hold(HeldQuotes.Entry(firm: .submarine(firm), contact: contact), nowUnix: now)
        var result: [String: JSONValue] = [
            "amount_sat": .integer(firm.amountSat),
            "provider": RoutePlan.providerJSON(candidate.provider.contact, contractType: candidate.contractType),
            "fees": .object([
                "amount_sat": .integer(firm.amountSat), "service_fee_sat": .integer(firm.quote.serviceFeeSat),
                "provider_onchain_fee_sat": .integer(firm.quote.onchainFeeSat), "lock_total_sat": .integer(firm.quote.totalSat),
                "lock_fee_sat": .integer(candidate.lockFeeSat),
                "fees_total_sat": .integer(firm.quote.totalSat - firm.amountSat + candidate.lockFeeSat),
                "spend_max_sat": .integer(firm.quote.totalSat + candidate.lockFeeSat),
            ]),
        ]
        if !done.passedOver.isEmpty { result["skipped"] = Self.skippedJSON(done.ranked, passedOver: done.passedOver) }
        for (key, value) in Self.validity(quoteID: firm.quoteID, validUntilUnix: firm.quote.validUntilUnix, now: now) {
            result[key] = value
        }
        return result
    }

    /// A direct route's fee breakdown, in the keys a swap's has for the same figures.
    private static func directFees(amountSat: Int64, feeSat: Int64) -> JSONValue {
        .object(["amount_sat": .integer(amountSat), "fees_total_sat": .integer(feeSat), "spend_max_sat": .integer(amountSat + feeSat)])
    }

    private static func validity(quoteID: String, validUntilUnix: UInt64, now: UInt64) -> [String: JSONValue] {
        ["quote_id": .string(quoteID), "valid_until_unix": .integer(Int64(clamping: validUntilUnix)),
         "valid_for_seconds": .integer(Int64(clamping: validUntilUnix) - Int64(clamping: now))]
    }

    // MARK: pay --quote

    /// `pay <contact> <sats> --quote <id>`: commits a quote `quote --contact` fetched: to the
    /// address the contact gave then (a reverse swap), or paying the invoice it signed then
    /// (a submarine swap). The provider decides whether it is still valid; an expired one
    /// fails with `quote_expired` and nothing paid.
    func payQuoted(_ quoteID: String, contact: SavedContact, amountSat: Int64, options: SwapOptions,
                   progress: CommandProgress) async throws(ControlError) -> JSONValue {
        guard let held = heldQuotes.entry(quoteID) else {
            throw .notFound("no quote \(quoteID) is held by this node (quotes from `peernode quote` are kept in memory until "
                            + "they are committed or the daemon restarts); ask for a fresh one with "
                            + "`peernode quote \(amountSat) --contact \(contact.name)`; nothing was paid")
        }
        guard held.contact == contact.name else {
            throw .invalidRequest("quote \(quoteID) was fetched for " + (held.contact.map { "contact \($0)" } ?? "a swap-out or swap-in")
                                  + ", not for paying \(contact.name); nothing was paid")
        }
        let (firmAmount, firmType, provider, source): (Int64, ContractType, Offers.Contact, RailSource)
        switch held.firm {
        case .reverse(let firm, _): (firmAmount, firmType, provider, source) = (firm.amountSat, firm.contractType, firm.contact, .spending)
        case .submarine(let firm): (firmAmount, firmType, provider, source) = (firm.amountSat, firm.contractType, firm.contact, .savings)
        }
        guard firmAmount == amountSat else {
            throw .invalidRequest("quote \(quoteID) is for paying \(firmAmount) sat, not \(amountSat) sat; nothing was paid")
        }
        if let type = options.contractType, type != firmType {
            throw .invalidRequest("quote \(quoteID) is for a \(firmType.rawValue) contract, not \(type.rawValue); nothing was paid")
        }
        if let wanted = options.source, wanted != source {
            throw .invalidRequest("quote \(quoteID) pays from \(source.rawValue), not --from \(wanted.rawValue); nothing was paid")
        }
        _ = heldQuotes.take(quoteID)
        let left = Int64(clamping: held.validUntilUnix) - Int64(clamping: services.clock.nowUnix)
        progress.stage("route", "committing quote \(quoteID) from \(provider.name) (\(firmType.rawValue)), "
                       + (left >= 0 ? "valid for \(left) s more" : "expired \(-left) s ago by this node's clock; the provider decides"))
        var result: [String: JSONValue] = ["provider": RoutePlan.providerJSON(provider, contractType: firmType),
                                           "quote_id": .string(quoteID)]
        do throws(ClientEngineError) {
            switch held.firm {
            case .reverse(let firm, let destination):
                guard let destination else { throw ClientEngineError.unsupportedDestination("the quote names no destination") }
                let report = try await engine.pay(destination: destination, firm: firm, purpose: .payContact) { progress.bind($0) }
                for (key, value) in Self.sent(report) { result[key] = value }
            case .submarine(let firm):
                guard let submarine else { throw ClientEngineError.unsupportedDestination("submarine swaps are not wired in") }
                let report = try await submarine.pay(firm: firm) { progress.bind($0) }
                for (key, value) in report.json { result[key] = value }
            }
        } catch .rejected(.quoteExpired, _) {
            throw ControlError(code: Self.quoteExpiredCode,
                               message: "\(provider.name) refused quote \(quoteID): it expired at unix time "
                                   + "\(held.validUntilUnix) (\(Self.quoteExpiredCode): quotes are single use and valid "
                                   + "for the provider's quote lifetime); nothing was paid. Ask for a fresh one with `peernode quote \(amountSat) "
                                   + "--contact \(contact.name)`, or pay without --quote")
        } catch {
            throw Self.controlError(error)
        }
        result["contact"] = .string(contact.name)
        result["contact_pubky"] = .string(contact.pubky.z32)
        return .object(result)
    }
}
