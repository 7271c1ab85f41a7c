import Bitcoin
import HTLC
import Lightning
import Offers
import Transport

extension SubmarineProviderEngine {
    /// The reply to an onchain_to_ln SwapRequest, a CoopRefundRequest, or a
    /// SwapStatusRequest for one of this engine's swaps; nil for anything else (the reverse
    /// engine and the desk answer those).
    public func answer(_ request: [UInt8], from peer: Pubky) async -> [UInt8]? {
        guard let message = try? SwapMessage(bytes: request) else { return nil }
        switch message {
        case .submarineSwapRequest(let swapRequest):
            return await answer(swapRequest, from: peer)
        case .swapStatusRequest(let statusRequest):
            return await status(for: statusRequest, from: peer)
        case .coopRefundRequest(let refundRequest):
            return await answer(refundRequest, from: peer)
        default:
            return nil
        }
    }

    /// Pushes have no submarine meaning (the client learns the preimage from the claim).
    public func receive(push message: [UInt8], from peer: Pubky) {}

    func logFromPeer(_ peer: Pubky, _ line: String) {
        let (allowed, summary) = peerLines.admit(peer, now: dependencies.clock.nowUnix)
        for dropped in summary { log(dropped) }
        if allowed { log(line) }
    }

    // MARK: SwapRequest

    /// Answers a SwapRequest: the stored accept for a resend, or a new swap. Requests for
    /// the same quote are set up one at a time.
    func answer(_ request: SubmarineSwapRequest, from peer: Pubky) async -> [UInt8] {
        if let running = settingUp[request.quoteID] {
            _ = await running.value
            return await setUp(request, from: peer)
        }
        let task = Task { await self.setUp(request, from: peer) }
        settingUp[request.quoteID] = task
        let reply = await task.value
        settingUp[request.quoteID] = nil
        return reply
    }

    private func setUp(_ request: SubmarineSwapRequest, from peer: Pubky) async -> [UInt8] {
        let requestID = request.requestID
        do {
            if let stored = try await dependencies.store.swap(request.quoteID) {
                return storedAccept(stored, for: request, from: peer)
            }
        } catch {
            log("submarine SwapRequest for quote \(UntrustedText.quoted(request.quoteID)): reading the store failed: \(error)")
            return Reject(requestID: requestID, code: .internal, reason: "the provider cannot read its swaps now").encoded
        }
        let desk = dependencies.desk
        guard desk.terms.submarine != nil else { return Reject(requestID: requestID, error: .unsupportedDirection).encoded }
        do { try request.scriptType.checkOfferable() } catch {
            return Reject(requestID: requestID, error: .unacceptableTerms(error.description)).encoded
        }
        guard desk.terms.contractTypes.contains(request.scriptType) else {
            return Reject(requestID: requestID, error: .unacceptableTerms("script type \(request.scriptType) is not offered")).encoded
        }
        let invoice: SubmarineInvoice
        do {
            invoice = try SubmarineInvoice(bolt11: request.invoice)
        } catch {
            return Reject(requestID: requestID, code: .invalidRequest, reason: "invoice_unreadable: \(error)").encoded
        }
        let quote: Quote
        do {
            quote = try await desk.redeem(quoteID: request.quoteID, client: peer)
        } catch {
            return Reject(requestID: requestID, error: error).encoded
        }
        guard quote.swapDirection == .onchainToLightning else {
            return Reject(requestID: requestID, error: .unacceptableTerms("quote \(quote.quoteID) is not for onchain_to_ln")).encoded
        }
        let tipHeight: UInt32
        let policy: TimelockPolicy
        let rules: SubmarineRules
        do {
            tipHeight = UInt32(clamping: try await dependencies.chain.tip().height)
            policy = try TimelockPolicy(requiredConfirmations: quote.requiredConfirmations,
                                        htlcTimeoutBlocks: quote.htlcTimeoutBlocks)
            rules = SubmarineRules(network: configuration.network, providerNodeID: try await nodeID(),
                                   routeCLTVBlocks: desk.terms.submarine?.routeCLTVBlocks ?? SubmarineRules.defaultRouteCLTVBlocks)
        } catch {
            log("submarine SwapRequest for quote \(UntrustedText.quoted(request.quoteID)): \(error)")
            return Reject(requestID: requestID, code: .internal, reason: "the provider cannot check the invoice now").encoded
        }
        let timeoutHeight = policy.timeoutHeight(tipHeight: tipHeight)
        do {
            try rules.check(invoice, quote: quote, timeoutHeight: timeoutHeight, tipHeight: tipHeight,
                            nowUnix: dependencies.clock.nowUnix)
        } catch {
            logFromPeer(peer, "submarine SwapRequest for quote \(UntrustedText.quoted(request.quoteID)) refused: \(error.code)")
            return Reject(requestID: requestID, code: error.rejectCode, reason: error.description).encoded
        }
        let promised = quote.amountSat + configuration.routingReserve.fee(paymentSat: quote.amountSat)
        do {
            let spendableSat = Int64(clamping: try await dependencies.lightning.spendableBalance() / 1_000)
            guard liquidity.promise(promised, for: quote.quoteID, within: spendableSat) else {
                let available = max(0, spendableSat - (liquidity.promisedSat))
                return Reject(requestID: requestID, error: .insufficientLightning(available: available, needed: promised)).encoded
            }
        } catch {
            log("submarine SwapRequest: reading the Lightning balance failed: \(error)")
            return Reject(requestID: requestID, code: .internal, reason: "the provider cannot read its Lightning balance now").encoded
        }
        do {
            try risk.admit(swapID: quote.quoteID, peer: peer, amountSat: quote.amountSat)
        } catch {
            liquidity.release(quote.quoteID)
            return Reject(requestID: requestID, error: error).encoded
        }
        do {
            return try await create(request, quote: quote, invoice: invoice, timeoutHeight: timeoutHeight, client: peer)
        } catch {
            risk.release(swapID: quote.quoteID)
            liquidity.release(quote.quoteID)
            log("submarine SwapRequest for quote \(UntrustedText.quoted(request.quoteID)) failed: \(error)")
            return Reject(requestID: requestID, code: .internal,
                          reason: "the provider could not set up the swap; ask for a new quote").encoded
        }
    }

    /// The provider's Lightning node key, read once.
    private func nodeID() async throws -> PublicKey {
        if let ownNodeID { return ownNodeID }
        let key = try await dependencies.lightning.info().identityKey
        ownNodeID = key
        return key
    }

    /// The accept already stored for this quote, when the request is the same one again;
    /// re-signed under the new request id if the client resent under another one.
    private func storedAccept(_ stored: SwapRecord, for request: SubmarineSwapRequest, from peer: Pubky) -> [UInt8] {
        guard let swap = try? SubmarineProviderRecord(record: stored, network: configuration.network),
              swap.isResend(of: request, from: peer) else {
            return Reject(requestID: request.requestID, error: .quoteAlreadyUsed).encoded
        }
        if swap.accept.body.requestID == request.requestID { return swap.accept.encoded }
        var body = swap.accept.body
        body.requestID = request.requestID
        return Signed(signing: body, with: identity).encoded
    }

    /// Sets up a new swap: the provider's claim key from the seed, the contract, the signed
    /// accept, all stored (`accepted`) before the accept leaves.
    private func create(_ request: SubmarineSwapRequest, quote: Quote, invoice: SubmarineInvoice, timeoutHeight: UInt32,
                        client: Pubky) async throws(ProviderError) -> [UInt8] {
        let deps = dependencies
        let index: UInt32
        do {
            index = try await deps.store.reserveSwapIndex()
        } catch {
            throw .store(error)
        }
        let contract: SwapContract
        do {
            let claimKey = try deps.keyChain.secrets(index: index, scheme: .current).claimKey.publicKey
            let terms = try SwapTerms(network: configuration.network, paymentHash: invoice.paymentHash,
                                      claimPublicKey: claimKey, refundPublicKey: request.refundPublicKey,
                                      timeoutHeight: timeoutHeight, roles: .submarine)
            contract = try SwapContract(type: request.scriptType, terms: terms)
        } catch {
            throw .htlc(error)
        }
        let accept = Signed(signing: SubmarineSwapAccept(requestID: request.requestID, swapID: quote.quoteID,
                                                         quoteID: quote.quoteID, amountSat: quote.amountSat,
                                                         totalSat: quote.totalSat, contract: contract),
                            with: identity)
        let now = Int64(deps.clock.nowUnix)
        let record = SwapRecord(id: quote.quoteID, role: .provider, swapIndex: index, keyScheme: .current,
                                peer: client.description, createdAt: now,
                                contract: SubmarineProviderRecord.contractJSON(accept: accept, quote: quote, request: request))
        let state = SubmarineProviderState.accepted
        do {
            _ = try await deps.store.create(record, firstEvent: state.kind.rawValue, data: state.eventData, at: now)
        } catch {
            throw .store(error)
        }
        let swap = try SubmarineProviderRecord(record: record, network: configuration.network)
        log("submarine swap \(swap.swapID): accepted, pays \(quote.amountSat) sat for a lock of \(quote.totalSat) sat, "
            + "\(contract.type) at \(contract.encodedAddress), timeout \(timeoutHeight)")
        swaps[swap.swapID] = swap
        states[swap.swapID] = state
        await watchScript(swap)
        openMailbox(swap.swapID)
        deliver(.recover, to: swap.swapID)
        return accept.encoded
    }

    // MARK: SwapStatusRequest

    /// Submarine swaps have no status of their own in swap/1 yet (`SwapStatus` names the
    /// reverse direction's steps): a client asking gets a plain answer instead of a wrong
    /// status; it reads the provider's progress from the chain (the claim carries the
    /// preimage). Nil for swaps that are not this engine's.
    private func status(for request: SwapStatusRequest, from peer: Pubky) async -> [UInt8]? {
        guard let stored = try? await dependencies.store.swap(request.swapID), SubmarineProviderRecord.isSubmarine(stored) else {
            return nil
        }
        guard stored.peer == peer.description else { return Reject(requestID: request.requestID, error: .swapNotFound).encoded }
        return Reject(requestID: request.requestID, code: .notFound,
                      reason: "onchain_to_ln swaps have no status messages yet; the provider's claim of the lock carries "
                        + "the preimage").encoded
    }
}
