import Bitcoin
import HTLC
import Lightning
import Offers
import Transport

extension SubmarineClientEngine {
    /// Has `invoice` paid through `provider`: a firm quote, then `pay(firm:)`.
    public func pay(invoice: String, via provider: ProviderOffer, contractType: ContractType? = nil, ownInvoice: Bool = false,
                    named: (@Sendable (String) -> Void)? = nil) async throws(ClientEngineError) -> SubmarineClientReport {
        let firm = try await firmQuote(invoice: invoice, via: provider, contractType: contractType, ownInvoice: ownInvoice)
        return try await pay(firm: firm, named: named)
    }

    /// Asks `provider` for an `onchain_to_ln` quote for the invoice's amount, bound to its
    /// payment hash, and checks it against the offer's submarine terms. Nothing is stored
    /// and nothing is locked.
    public func firmQuote(invoice encoded: String, via provider: ProviderOffer, contractType: ContractType? = nil,
                          ownInvoice: Bool = false) async throws(ClientEngineError) -> SubmarineClientFirmQuote {
        let invoice: Invoice
        do { invoice = try InvoiceDecoder.decode(encoded) } catch {
            throw .unsupportedDestination("the invoice does not decode: \(error)")
        }
        guard let amountMsat = invoice.amountMsat, amountMsat > 0, amountMsat % 1_000 == 0 else {
            throw .unsupportedDestination("the invoice must name a whole number of satoshis (a swap locks exactly that plus fees)")
        }
        let amountSat = Int64(amountMsat / 1_000)
        // Early, before a provider is asked; `pay(firm:)` checks again when it records.
        try await refuseUsedInvoice(invoice.paymentHash)
        let contact = provider.contact
        let offer = provider.terms
        guard let terms = offer.terms(for: .onchainToLightning) else {
            throw .offers(.noRoute("\(contact) does not run onchain_to_ln swaps"))
        }
        guard (terms.minAmountSat...max(terms.minAmountSat, terms.maxAmountSat)).contains(amountSat) else {
            throw .offers(.noRoute("\(contact) swaps \(OffersError.sats(terms.minAmountSat))...\(OffersError.sats(terms.maxAmountSat)) "
                                   + "on-chain to Lightning, not \(OffersError.sats(amountSat))"))
        }
        let offered = OfferFeature.contractTypes(in: offer.features)
        let type: ContractType
        if let contractType {
            guard offered.contains(contractType) else {
                throw .offers(.noRoute("\(contact) does not offer \(contractType.rawValue) contracts"))
            }
            type = contractType
        } else {
            guard let preferred = offered.first else { throw .offers(.noRoute("\(contact) offers only retired contracts")) }
            type = preferred
        }
        report(nil, SubmarineClientProgress.quoting, "asking \(contact) to pay \(OffersError.sats(amountSat)) on Lightning "
               + "against an on-chain lock")
        let request = QuoteRequest(requestID: RandomID.make(), offerID: offer.offerID, direction: .onchainToLightning,
                                   amountSat: amountSat, paymentHash: invoice.paymentHash)
        let signed: Signed<Quote>
        switch try await link(for: contact).request(request.encoded, id: request.requestID,
                                                    timeoutMilliseconds: configuration.requestTimeoutMilliseconds) {
        case .quote(let quote): signed = quote
        default: throw .offers(.unexpectedReply)
        }
        do {
            _ = try configuration.quotePolicy.check(signed, answering: request, provider: contact.pubky, offer: offer,
                                                    nowUnix: clock.nowUnix)
        } catch {
            throw .offers(error)
        }
        return SubmarineClientFirmQuote(contact: contact, offer: offer, signed: signed, invoice: invoice, contractType: type,
                                        ownInvoice: ownInvoice)
    }

    /// Refuses an invoice whose payment hash another `pay` is recording now (not swap
    /// `id`'s own), or a stored swap may have locked for (`SubmarineInvoiceIndex`).
    private func refuseUsedInvoice(_ paymentHash: [UInt8], recordingAs id: String? = nil) async throws(ClientEngineError) {
        if let other = invoicesBeingRecorded[paymentHash], other != id { throw .invoiceAlreadyUsed(swapID: other) }
        if let other = try await storeCall({ () async throws(StoreError) in
            try await SubmarineInvoiceIndex.lockingSwap(for: paymentHash, store: store)
        }) {
            throw .invoiceAlreadyUsed(swapID: other)
        }
    }

    /// Commits `firm`: records the swap, sends the invoice and our refund key, and lets the
    /// machine verify the accept, fund and record the lock, and broadcast it. Returns once
    /// the invoice is paid (the preimage known); throws when the swap ends without it, or
    /// once a refund is out (the provider did not pay before the timeout), saying where the
    /// funds are. `named` learns the swap's id before any of its progress is reported.
    public func pay(firm: SubmarineClientFirmQuote,
                    named: (@Sendable (String) -> Void)? = nil) async throws(ClientEngineError) -> SubmarineClientReport {
        let quote = firm.quote
        let id = "sub-" + quote.quoteID
        let hash = firm.invoice.paymentHash
        // Claimed for this swap until its record (with the hash's index entry) is written, so
        // that two `pay`s of one invoice at once cannot both get past the index.
        if let other = invoicesBeingRecorded[hash] { throw .invoiceAlreadyUsed(swapID: other) }
        invoicesBeingRecorded[hash] = id
        defer { invoicesBeingRecorded[hash] = nil }
        try await refuseUsedInvoice(hash, recordingAs: id)
        // What the wallet can lock now; the fee is on top, and the funding says if it fits.
        _ = try? await wallet.sync()
        let lockable = await wallet.capacity().lockableSat
        guard lockable >= quote.totalSat else {
            throw .insufficientSavings(lockableSat: lockable, neededSat: quote.totalSat)
        }
        let index = try await storeCall { () async throws(StoreError) in try await store.reserveSwapIndex() }
        let refundKey: PrivateKey
        do { refundKey = try keyChain.secrets(index: index, scheme: .current).refundKey } catch {
            throw .corruptRecord("swap index \(index): \(error)")
        }
        // Cooperative spends only with a provider that offers them, for a contract with a key path.
        let cooperates = configuration.cooperative && firm.offer.features.contains(OfferFeature.musig2)
            && firm.contractType == .taprootBoltz
        let request = SubmarineSwapRequest(requestID: RandomID.make(), quoteID: quote.quoteID, invoice: firm.invoice.string,
                                           refundPublicKey: refundKey.publicKey, scriptType: firm.contractType,
                                           features: cooperates ? [OfferFeature.musig2] : [])
        let record = SubmarineClientRecord(provider: firm.contact, quote: firm.signed, request: request,
                                           invoicePaymentHash: firm.invoice.paymentHash, network: configuration.network,
                                           ownInvoice: firm.ownInvoice)
        let initial = SubmarineClientState(phase: .quoted)
        let stored = SwapRecord(id: id, role: .client, swapIndex: index, keyScheme: .current, peer: firm.contact.pubky.z32,
                                createdAt: Int64(clock.nowUnix), contract: record.json)
        // The invoice's hash enters the index in the record's own transaction.
        _ = try await storeCall { () async throws(StoreError) in
            try await store.create(stored, firstEvent: SubmarineClientPhase.quoted.rawValue, data: initial.json,
                                   at: Int64(clock.nowUnix), values: SubmarineInvoiceIndex.index.entry(hash, swapID: id))
        }
        let run = makeRun(id: id, index: index, record: record, refundKey: refundKey, state: initial)
        named?(id)
        report(id, SubmarineClientPhase.quoted.rawValue,
               "quote: lock \(OffersError.sats(quote.totalSat)) for an invoice of \(OffersError.sats(quote.amountSat)) "
               + "(service fee \(OffersError.sats(quote.serviceFeeSat)), provider claim fee \(OffersError.sats(quote.onchainFeeSat)))")
        let updates = observe(run)
        if firm.ownInvoice { watchOwnInvoice(run) }

        report(id, SubmarineClientProgress.requestingSwap, "sending the invoice and our refund key to \(firm.contact)")
        do throws(ClientEngineError) {
            let reply = try await link(for: firm.contact).request(request.encoded, id: request.requestID,
                                                                  timeoutMilliseconds: configuration.requestTimeoutMilliseconds)
            guard case .submarineSwapAccept(let accept) = reply else { throw .offers(.unexpectedReply) }
            let tip: ChainTip
            do { tip = try await chain.tip() } catch { throw .provider("the chain backend is unreachable: \(error)") }
            run.accept = accept
            feed(id, .acceptReceived(accept, tipHeight: tip.height))
        } catch {
            feed(id, .refused(error.reason))
            _ = await lastState(updates)
            throw error
        }
        return try await waitForPayment(run, updates: updates)
    }

    /// Waits until the preimage is known, the swap ends, or a refund is out.
    private func waitForPayment(_ run: SubmarineClientRun,
                                updates: AsyncStream<SubmarineClientState>) async throws(ClientEngineError) -> SubmarineClientReport {
        var last = run.state
        for await state in updates {
            last = state
            if state.preimage != nil || state.phase.isFinal || state.phase == .refundBroadcast { break }
        }
        if let preimage = last.preimage, let lock = last.lock {
            let quote = run.record.quote.body
            return SubmarineClientReport(
                swapID: run.id, amountSat: quote.amountSat, serviceFeeSat: quote.serviceFeeSat,
                providerOnchainFeeSat: quote.onchainFeeSat, lockTotalSat: lock.value, lockFeeSat: run.lockFeeSat ?? 0,
                lockTxid: lock.outPoint.txid, paymentHash: run.record.invoicePaymentHash, preimage: preimage,
                preimageSource: last.preimageSource?.rawValue ?? "unknown")
        }
        if let outcome = last.outcome { throw .submarineEnded(swapID: run.id, outcome: outcome) }
        if last.phase == .refundBroadcast, let refund = last.refund, let contract = last.contract,
           KeyPathSpend.isKeyPath(refund.inputs[0].witness, contract: contract) {
            throw .submarineEnded(swapID: run.id, outcome: SubmarineClientOutcome(
                reason: "the provider could not pay the invoice and co-signed a refund of the lock (key path, before the "
                    + "timeout); it is broadcast, and the savings come back less its fee", funds: .refunded))
        }
        if last.phase == .refundBroadcast {
            throw .submarineEnded(swapID: run.id, outcome: SubmarineClientOutcome(
                reason: "the provider did not pay the invoice before the timeout; the refund is broadcast and is bumped "
                    + "each block until it confirms", funds: .refunded))
        }
        // The run stopped (a failed write): the record says where it is.
        throw .store("submarine swap \(run.id) stopped in \(last.phase.rawValue); it resumes when the node restarts")
    }

    private func lastState(_ updates: AsyncStream<SubmarineClientState>) async -> SubmarineClientState? {
        var last: SubmarineClientState?
        for await state in updates {
            last = state
            if state.phase.isFinal { break }
        }
        return last
    }

    /// A swap-in pays this node's own invoice: its settlement reveals the preimage as
    /// soon as the provider's payment arrives, before any claim.
    func watchOwnInvoice(_ run: SubmarineClientRun) {
        let id = run.id
        let stream = lightning.subscribeInvoice(paymentHash: run.record.invoicePaymentHash)
        run.invoiceWatch = Task { [weak self] in
            do {
                for try await status in stream where status.state == .settled {
                    if let preimage = status.preimage { await self?.feed(id, .preimageLearned(preimage, source: .settledInvoice)) }
                    return
                }
            } catch {
                await self?.note(id, "following our own invoice failed (\(error)); the provider's claim tells instead")
            }
        }
    }
}
