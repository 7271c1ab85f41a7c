import Bitcoin
import HTLC
import Lightning
import Offers
import Transport

extension ClientEngine {
    /// Pays `amountSat` (X) to `destination` through the router's choice.
    public func pay(destination: Address, amountSat: Int64, route: RouteDecision,
                    purpose: ClaimPurpose = .payContact) async throws(ClientEngineError) -> ClientPayReport {
        guard let choice = route.choice else { throw .offers(.noRoute("no contact offers a swap that fits \(amountSat) sat")) }
        return try await pay(destination: destination, amountSat: amountSat, via: choice.provider,
                             contractType: choice.contractType, purpose: purpose)
    }

    /// Pays `amountSat` (X) to `destination` through `provider` (DESIGN 1): quote X plus the
    /// claim fee, commit, pay, wait for the lock, claim. Returns once the claim is
    /// broadcast ("sent"), saying whether it confirmed within the wait window; throws when
    /// the swap ends without a claim, saying what happened to the funds. `named` learns the
    /// swap's id as soon as it exists, before any progress of the swap is reported, so a
    /// caller tells its own swap's progress from that of pays running beside it.
    public func pay(destination: Address, amountSat: Int64, via provider: ProviderOffer, contractType: ContractType? = nil,
                    purpose: ClaimPurpose = .payContact,
                    named: (@Sendable (String) -> Void)? = nil) async throws(ClientEngineError) -> ClientPayReport {
        let destinationType: DestinationType
        do { destinationType = try DestinationType(address: destination) } catch {
            throw .unsupportedDestination("\(error)")
        }
        let firm = try await firmQuote(destinationType: destinationType, amountSat: amountSat, via: provider,
                                       contractType: contractType)
        return try await pay(destination: destination, firm: firm, purpose: purpose, named: named)
    }

    /// Asks `provider` for a quote locking X plus the claim fee for a `destinationType`
    /// claim, and checks it against the offer. Nothing is stored and nothing is paid.
    public func firmQuote(destinationType: DestinationType, amountSat: Int64, via provider: ProviderOffer,
                          contractType: ContractType? = nil) async throws(ClientEngineError) -> ClientFirmQuote {
        let contact = provider.contact
        let offer = provider.terms
        let type = contractType ?? OfferFeature.contractTypes(in: offer.features)[0]
        guard amountSat > 0 else { throw .unsupportedDestination("the amount must be positive") }

        // The claim fee comes from the estimate now, never a constant (DESIGN 7).
        let estimate: ChainFeeEstimate
        do { estimate = try await feeEstimator.estimate(targetBlocks: configuration.claimFeeTargetBlocks) } catch {
            throw .feeEstimate("\(error)")
        }
        let rate = estimate.rate
        if estimate.source == .fallback {
            // Never silent (audit M-3): the lock is priced at a rate the node did not estimate.
            report(nil, .quoting, "the node has no fee estimate: the claim fee is priced at the configured fallback "
                   + "\(rate.satPerKvB / 1_000) sat/vB; later bumps wait for a real estimate")
        }
        let claimFee = ContractSizes.claimFee(type, destination: destinationType, rate: rate)
        let lockAmount = amountSat + claimFee
        // Our own claim must be buildable before we ask, commit or pay (a lock we could
        // never claim would hold the payment until the provider refunds).
        try checkClaimFits(type, destination: destinationType, amountSat: amountSat, lockAmountSat: lockAmount, rate: rate,
                           purpose: .payContact, blocksLeft: offer.htlcTimeoutBlocks)
        report(nil, .quoting, "asking \(contact) for \(OffersError.sats(lockAmount)) (\(OffersError.sats(amountSat)) + claim fee "
               + "\(OffersError.sats(claimFee)))")

        let link = link(for: contact)
        let quoteRequest = QuoteRequest(requestID: RandomID.make(), offerID: offer.offerID, amountSat: lockAmount)
        let signedQuote: Signed<Quote>
        switch try await link.request(quoteRequest.encoded, id: quoteRequest.requestID,
                                      timeoutMilliseconds: configuration.requestTimeoutMilliseconds) {
        case .quote(let quote): signedQuote = quote
        default: throw .offers(.unexpectedReply)
        }
        let quote: Quote
        do {
            quote = try configuration.quotePolicy.check(signedQuote, answering: quoteRequest, provider: contact.pubky,
                                                        offer: offer, nowUnix: clock.nowUnix)
        } catch {
            throw .offers(error)
        }
        return ClientFirmQuote(contact: contact, offer: offer, signed: signedQuote, quote: quote, contractType: type,
                               destinationType: destinationType, amountSat: amountSat, claimFeeSat: claimFee,
                               claimFeeRate: rate)
    }

    /// Commits `firm` (DESIGN 1: pay, wait for the lock, claim). The provider decides
    /// whether the quote is still valid: an expired one comes back as `.rejected(.quoteExpired)`
    /// before anything is paid, and the swap record ends `failed`. `named` as above.
    public func pay(destination: Address, firm: ClientFirmQuote, purpose: ClaimPurpose = .payContact,
                    named: (@Sendable (String) -> Void)? = nil) async throws(ClientEngineError) -> ClientPayReport {
        let contact = firm.contact
        let quote = firm.quote
        let signedQuote = firm.signed
        let type = firm.contractType
        let amountSat = firm.amountSat
        let claimFee = firm.claimFeeSat
        let rate = firm.claimFeeRate
        let lockAmount = amountSat + claimFee
        let destinationType: DestinationType
        do { destinationType = try DestinationType(address: destination) } catch {
            throw .unsupportedDestination("\(error)")
        }
        guard destinationType == firm.destinationType else {
            throw .unsupportedDestination("quote \(quote.quoteID) was priced for a \(firm.destinationType.rawValue) claim, "
                                          + "not \(destinationType.rawValue)")
        }
        try checkClaimFits(type, destination: destinationType, amountSat: amountSat, lockAmountSat: lockAmount, rate: rate,
                           purpose: purpose, blocksLeft: quote.htlcTimeoutBlocks)
        // Our own minimum may ask for more confirmations than the quote: the timeout must
        // leave room for them too (audit L-2).
        let required = configuration.requiredConfirmations(quoted: quote.requiredConfirmations, lockAmountSat: lockAmount)
        do {
            try configuration.quotePolicy.checkTerms(requiredConfirmations: required, htlcTimeoutBlocks: quote.htlcTimeoutBlocks)
        } catch {
            throw .offers(error)
        }
        let link = link(for: contact)

        // The contract and the index the secrets derive from are on disk before the
        // provider learns our payment hash.
        let index = try await storeCall { () async throws(StoreError) in try await store.reserveSwapIndex() }
        let secrets: SwapSecrets
        do { secrets = try keyChain.secrets(index: index, scheme: .current) } catch {
            throw .corruptRecord("swap index \(index): \(error)")
        }
        try await refuseRecordedPaymentHash(secrets.paymentHash)
        let terms = ClientSwapTerms(
            provider: contact, quote: signedQuote, destination: destination, amountSat: amountSat, claimFeeSat: claimFee,
            claimFeeRate: rate, purpose: purpose, contractType: type,
            requiredConfirmations: required,
            network: configuration.network,
            // A provider whose offer does not list musig2 is never asked.
            cooperativeClaim: configuration.cooperativeClaims && firm.offer.features.contains(OfferFeature.musig2))
        let id = quote.quoteID
        let initial = ClientSwapState(phase: .quoted)
        let record = SwapRecord(id: id, role: .client, swapIndex: index, keyScheme: .current, peer: contact.pubky.z32,
                                createdAt: Int64(clock.nowUnix), contract: terms.json)
        // The payment hash enters the index (audit H-5) in the record's own transaction.
        _ = try await storeCall { () async throws(StoreError) in
            try await store.create(record, firstEvent: ClientSwapPhase.quoted.rawValue, data: initial.json,
                                   at: Int64(clock.nowUnix),
                                   values: ClientPaymentHashIndex.index.entry(secrets.paymentHash, swapID: id))
        }
        let run = makeRun(id: id, index: index, terms: terms, secrets: secrets, state: initial)
        named?(id)
        report(id, .phase(.quoted), "quote \(OffersError.sats(quote.totalSat)) for \(OffersError.sats(quote.amountSat)) locked "
               + "(service fee \(OffersError.sats(quote.serviceFeeSat)), provider on-chain fee \(OffersError.sats(quote.onchainFeeSat)))")
        let updates = observe(run)

        do {
            try await commit(run, quote: quote, link: link)
        } catch {
            // The outcome adds where the funds are; the reason alone keeps it said once.
            feed(id, .refused(error.reason))
            _ = await lastState(updates)
            throw error
        }
        feed(id, .acceptVerified(timeoutHeight: Int(run.accept?.body.timeoutHeight ?? 0)))
        feed(id, .paymentStarting(atUnix: clock.nowUnix))
        return try await waitForClaim(run, updates: updates, quote: quote)
    }

    /// Throws `claimNotViable` unless `ClaimPolicy` accepts the first claim of a lock of
    /// `lockAmountSat` paying X at the quoted `rate`, `blocksLeft` before the timeout.
    private func checkClaimFits(_ type: ContractType, destination: DestinationType, amountSat: Int64, lockAmountSat: Int64,
                                rate: FeeRate, purpose: ClaimPurpose, blocksLeft: Int) throws(ClientEngineError) {
        do {
            _ = try configuration.claimPolicy.plan(lockValue: lockAmountSat, amount: amountSat, purpose: purpose,
                                                   destination: destination,
                                                   virtualSize: ContractSizes.claimVirtualSize(type, destination: destination),
                                                   feeRate: rate, blocksLeft: blocksLeft)
        } catch {
            throw .claimNotViable("a claim of \(lockAmountSat) sat paying \(amountSat) sat at "
                                  + "\(rate.satPerKvB / 1_000) sat/vB: \(error)")
        }
    }

    /// Refuses a payment hash a stored client swap already has (audit H-5). The index
    /// counter and its mark should make this impossible; if they ever fail (a database and
    /// mark both restored from an old backup), the preimage of that swap may be public, and
    /// a provider knowing it could settle the new invoice without locking. One lookup in
    /// `ClientPaymentHashIndex` (built once from the stored swaps), not a derivation per swap.
    private func refuseRecordedPaymentHash(_ paymentHash: [UInt8]) async throws(ClientEngineError) {
        if let id = try await ClientPaymentHashIndex.swap(with: paymentHash, store: store, keyChain: keyChain) {
            throw .paymentHashReused(swapID: id)
        }
    }

    /// Re-reads the budget, sends the SwapRequest and checks the accept. Throws before
    /// anything is paid.
    private func commit(_ run: ClientSwapRun, quote: Quote, link: ClientProviderLink) async throws(ClientEngineError) {
        let routingLimit = configuration.routingFee.fee(paymentSat: quote.totalSat)
        // A balance can drain after the quote; unreadable, the payment is the authority.
        do {
            let balanceSat = Int64(clamping: try await lightning.spendableBalance() / 1_000)
            guard balanceSat >= quote.totalSat + routingLimit else {
                throw ClientEngineError.insufficientBalance(balanceSat: balanceSat, neededSat: quote.totalSat + routingLimit)
            }
        } catch let error as ClientEngineError {
            throw error
        } catch {
            log("swap \(run.id): the spending balance could not be read (\(error)); going on, the payment decides")
        }

        report(run.id, .requestingSwap, "committing to quote \(quote.quoteID)")
        let request = SwapRequest(requestID: RandomID.make(), quoteID: quote.quoteID, paymentHash: run.secrets.paymentHash,
                                  claimPublicKey: run.secrets.claimKey.publicKey, scriptType: run.terms.contractType)
        let signedAccept: Signed<SwapAccept>
        switch try await link.request(request.encoded, id: request.requestID,
                                      timeoutMilliseconds: configuration.requestTimeoutMilliseconds) {
        case .swapAccept(let accept): signedAccept = accept
        default: throw .offers(.unexpectedReply)
        }
        let invoice: Invoice
        do { invoice = try InvoiceDecoder.decode(signedAccept.body.invoice) } catch {
            throw .offers(.acceptMismatch("the invoice does not decode: \(error)"))
        }
        let facts = InvoiceFacts(paymentHash: invoice.paymentHash, amountMsat: invoice.amountMsat,
                                 minFinalCLTVExpiry: Int(clamping: invoice.minFinalCLTVExpiryDelta))
        let tip: ChainTip
        do { tip = try await chain.tip() } catch { throw .provider("the chain backend is unreachable: \(error)") }
        do {
            run.contract = try configuration.acceptPolicy.check(signedAccept, quote: quote, request: request, invoice: facts,
                                                                provider: run.terms.provider.pubky,
                                                                network: configuration.network,
                                                                tipHeight: UInt32(clamping: tip.height))
        } catch {
            throw .offers(error)
        }
        run.accept = signedAccept
        run.acceptedTip = tip.height
        await watch(run)
    }

    /// Waits until the claim is out (then for its confirmation, within the window) or the
    /// swap ends.
    private func waitForClaim(_ run: ClientSwapRun, updates: AsyncStream<ClientSwapState>,
                              quote: Quote) async throws(ClientEngineError) -> ClientPayReport {
        var iterator = updates.makeAsyncIterator()
        var last = run.state
        while let state = await iterator.next() {
            last = state
            if state.phase.isFinal || (state.phase.claimIsOut && run.claimAccepted) { break }
        }
        if last.phase == .failed || last.phase == .abandoned, let outcome = last.outcome {
            throw .swapEnded(swapID: run.id, outcome: outcome)
        }
        guard last.phase.claimIsOut, run.claimAccepted || last.phase.isFinal else {
            // The run stopped (a failed write): the record says where it is, and a restart
            // resumes it from there.
            throw .store("swap \(run.id) stopped in \(last.phase.rawValue) before its claim was broadcast; "
                         + "it resumes when the node restarts")
        }
        report(run.id, .note, "sent: the claim is broadcast")
        var confirmed = last.claimConfirmations > 0
        if !confirmed {
            confirmed = await waitForConfirmation(observe(run), milliseconds: configuration.confirmationWaitMilliseconds)
        }
        if !confirmed { report(run.id, .note, "the transfer is committed and settling on-chain") }
        let state = run.state.claim == nil ? last : run.state
        guard let claim = state.claim else {
            throw .store("swap \(run.id) is in \(state.phase.rawValue) without a recorded claim")
        }
        let invoiceTotal = quote.totalSat
        let lockValue = state.verifiedLock?.value ?? run.terms.amountSat + run.terms.claimFeeSat
        return ClientPayReport(
            swapID: run.id, destination: run.terms.destination.encoded(for: configuration.network),
            amountSat: run.terms.amountSat, serviceFeeSat: quote.serviceFeeSat, providerOnchainFeeSat: quote.onchainFeeSat,
            claimFeeSat: run.terms.claimFeeSat, routingFeeLimitSat: configuration.routingFee.fee(paymentSat: invoiceTotal),
            invoiceTotalSat: invoiceTotal, claimTxid: claim.txid, settlement: confirmed ? .confirmed : .settling,
            claimSpend: ClientClaimSpend(claim: claim, lockValue: lockValue, coop: state.coopRequest,
                                         fallback: state.coopFallback))
    }

    private func waitForConfirmation(_ states: AsyncStream<ClientSwapState>, milliseconds: UInt64) async -> Bool {
        let sleeper = self.sleeper
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await state in states {
                    if state.claimConfirmations > 0 || state.phase == .completed { return true }
                }
                return false
            }
            group.addTask {
                do { try await sleeper.sleep(milliseconds: milliseconds) } catch {}
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    private func lastState(_ updates: AsyncStream<ClientSwapState>) async -> ClientSwapState? {
        var last: ClientSwapState?
        for await state in updates {
            last = state
            if state.phase.isFinal { break }
        }
        return last
    }

    func makeRun(id: String, index: UInt32, terms: ClientSwapTerms, secrets: SwapSecrets,
                 state: ClientSwapState) -> ClientSwapRun {
        let settings = ClientSwapMachine.Settings(requiredConfirmations: terms.requiredConfirmations,
                                                  completionConfirmations: configuration.completionConfirmations,
                                                  giveUpSeconds: configuration.giveUpSeconds,
                                                  cooperativeClaim: terms.cooperativeClaim && configuration.cooperativeClaims)
        let (stream, continuation) = AsyncStream.makeStream(of: ClientSwapInput.self)
        let run = ClientSwapRun(id: id, index: index, terms: terms, secrets: secrets,
                                machine: ClientSwapMachine(settings: settings, state: state), inputs: continuation)
        start(run, stream: stream)
        return run
    }

    func storeCall<T: Sendable>(_ body: () async throws(StoreError) -> T) async throws(ClientEngineError) -> T {
        do { return try await body() } catch { throw .store(error.description) }
    }
}
