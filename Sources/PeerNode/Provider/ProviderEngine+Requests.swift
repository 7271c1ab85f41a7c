import Bitcoin
import HTLC
import Lightning
import Offers
import Transport

extension ProviderEngine {
    /// Handlers for the node's `PeerServer`: offers and quotes go to the desk, swap
    /// requests and status requests to the engine, pushes (PreimagePush) to the engine.
    public nonisolated var handlers: PeerHandlers {
        let desk = dependencies.desk
        return PeerHandlers(onRequest: { [weak self] request, peer in
            if let reply = await desk.answer(request, from: peer) { return reply }
            if let reply = await self?.answer(request, from: peer) { return reply }
            return Self.reject(request, .unknownMessageType)
        }, onPush: { [weak self] message, peer in
            await self?.receive(push: message, from: peer)
        })
    }

    /// The reply to a SwapRequest, SwapStatusRequest or CoopClaimRequest from `peer`; nil
    /// for any other message (the desk answers offers and quotes).
    public func answer(_ request: [UInt8], from peer: Pubky) async -> [UInt8]? {
        let message: SwapMessage
        do {
            message = try SwapMessage(bytes: request)
        } catch .unknownMessageType {
            return nil
        } catch {
            return Self.reject(request, error)
        }
        switch message {
        case .swapRequest(let swapRequest):
            return await answer(swapRequest, from: peer)
        case .swapStatusRequest(let statusRequest):
            return await snapshot(for: statusRequest, from: peer)
        case .coopClaimRequest(let coopRequest):
            return await answer(coopRequest, from: peer)
        default:
            return nil
        }
    }

    /// A push from a client: a PreimagePush for one of its swaps. Anything else is ignored
    /// (pushes have no reply).
    public func receive(push message: [UInt8], from peer: Pubky) async {
        guard case .preimagePush(let push)? = try? SwapMessage(bytes: message) else { return }
        guard let swap = swaps[push.swapID], swap.client == peer else {
            logFromPeer(peer, "preimage push from \(peer) for unknown swap \(UntrustedText.quoted(push.swapID)) ignored")
            return
        }
        // The machine checks it against the payment hash, whether a lock exists, and
        // whether an unconfirmed lock is being taken back at this tip.
        let tip = try? await dependencies.chain.tip()
        deliver(.preimagePushed(preimage: push.preimage, tipHeight: tip.map { UInt32(clamping: $0.height) }), to: push.swapID)
    }

    /// A line caused by `peer`'s own message, within its budget (`LogThrottle`).
    func logFromPeer(_ peer: Pubky, _ line: String) {
        let (allowed, summary) = peerLines.admit(peer, now: dependencies.clock.nowUnix)
        for dropped in summary { log(dropped) }
        if allowed { log(line) }
    }

    // MARK: SwapRequest

    /// Answers a SwapRequest: the stored accept for a resend, or a new swap. Requests for
    /// the same quote are set up one at a time, so a resend racing the first gets the
    /// accept the first stored.
    func answer(_ request: SwapRequest, from peer: Pubky) async -> [UInt8] {
        if let running = settingUp[request.quoteID] {
            _ = await running.value
        } else {
            let task = Task { await self.setUp(request, from: peer) }
            settingUp[request.quoteID] = task
            let reply = await task.value
            settingUp[request.quoteID] = nil
            return reply
        }
        return await setUp(request, from: peer)
    }

    private func setUp(_ request: SwapRequest, from peer: Pubky) async -> [UInt8] {
        let store = dependencies.store
        do {
            if let stored = try await store.swap(request.quoteID) {
                return try storedAccept(stored, for: request, from: peer)
            }
        } catch {
            log("SwapRequest for quote \(UntrustedText.quoted(request.quoteID)): reading the store failed: \(error)")
            return Reject(requestID: request.requestID, code: .internal, reason: "the provider cannot read its swaps now").encoded
        }
        do { try request.scriptType.checkOfferable() } catch {
            // An old client asking for the retired p2wsh layout learns why and what to ask for.
            return Reject(requestID: request.requestID, error: .unacceptableTerms(error.description)).encoded
        }
        guard dependencies.desk.terms.contractTypes.contains(request.scriptType) else {
            return Reject(requestID: request.requestID,
                          error: .unacceptableTerms("script type \(request.scriptType) is not offered")).encoded
        }
        let quote: Quote
        do throws(OffersError) {
            quote = try await dependencies.desk.redeem(quoteID: request.quoteID, client: peer)
            // An onchain_to_ln quote prices the other direction: never a reverse swap.
            guard quote.swapDirection != .onchainToLightning else {
                throw OffersError.unacceptableTerms("quote \(quote.quoteID) is for onchain_to_ln; ask for an ln_to_onchain quote")
            }
            try risk.admit(swapID: quote.quoteID, peer: peer, amountSat: quote.amountSat)
        } catch {
            return Reject(requestID: request.requestID, error: error).encoded
        }
        do {
            return try await create(request, quote: quote, client: peer)
        } catch {
            risk.release(swapID: quote.quoteID)
            log("SwapRequest for quote \(UntrustedText.quoted(request.quoteID)) failed: \(error)")
            return Reject(requestID: request.requestID, code: .internal,
                          reason: "the provider could not set up the swap; ask for a new quote").encoded
        }
    }

    /// The accept already stored for this quote, when the request is the same one again;
    /// re-signed under the new request id if the client resent under another one.
    private func storedAccept(_ stored: SwapRecord, for request: SwapRequest, from peer: Pubky) throws(ProviderError) -> [UInt8] {
        let swap = try ProviderSwapRecord(record: stored, network: configuration.network)
        guard stored.role == .provider, swap.isResend(of: request, from: peer) else {
            // Another client's, or another hash or key: the quote is used (same text as
            // an unknown quote, so nothing about other clients shows).
            return Reject(requestID: request.requestID, error: .quoteAlreadyUsed).encoded
        }
        if swap.accept.body.requestID == request.requestID { return swap.accept.encoded }
        var body = swap.accept.body
        body.requestID = request.requestID
        return Signed(signing: body, with: identity).encoded
    }

    /// Sets up a new swap: hold invoice, contract, signed accept, all stored before the
    /// accept leaves.
    private func create(_ request: SwapRequest, quote: Quote, client: Pubky) async throws(ProviderError) -> [UInt8] {
        let deps = dependencies
        let policy: TimelockPolicy
        let contract: SwapContract
        let tip: ChainTip
        let index: UInt32
        do {
            tip = try await deps.chain.tip()
        } catch {
            throw .chain(error)
        }
        do {
            index = try await deps.store.reserveSwapIndex()
        } catch {
            throw .store(error)
        }
        do {
            policy = try TimelockPolicy(requiredConfirmations: quote.requiredConfirmations,
                                        htlcTimeoutBlocks: quote.htlcTimeoutBlocks)
            let refundKey = try deps.keyChain.secrets(index: index, scheme: .current).refundKey.publicKey
            let terms = try SwapTerms(network: configuration.network, paymentHash: request.paymentHash,
                                      claimPublicKey: request.claimPublicKey, refundPublicKey: refundKey,
                                      timeoutHeight: policy.timeoutHeight(tipHeight: UInt32(clamping: tip.height)))
            contract = try SwapContract(type: request.scriptType, terms: terms)
        } catch {
            throw .htlc(error)
        }
        let invoice: String
        do {
            invoice = try await deps.lightning.addHoldInvoice(
                paymentHash: request.paymentHash, amountMsat: UInt64(quote.totalSat) * 1_000,
                memo: "peernode swap \(quote.quoteID)", expirySeconds: configuration.invoiceExpirySeconds,
                cltvExpiry: UInt64(policy.holdInvoiceFinalCLTVDelta))
        } catch {
            throw .lightning(error)
        }
        let accept = Signed(signing: SwapAccept(requestID: request.requestID, swapID: quote.quoteID, quoteID: quote.quoteID,
                                                invoice: invoice, amountSat: quote.amountSat, totalSat: quote.totalSat,
                                                contract: contract),
                            with: identity)
        let now = Int64(deps.clock.nowUnix)
        let record = SwapRecord(id: quote.quoteID, role: .provider, swapIndex: index, keyScheme: .current,
                                peer: client.description, createdAt: now,
                                contract: ProviderSwapRecord.contractJSON(accept: accept, quote: quote, request: request))
        do {
            _ = try await deps.store.create(record, firstEvent: ProviderSwapState.Kind.invoiceCreated.rawValue,
                                            data: ProviderSwapState.invoiceCreated.eventData, at: now)
        } catch {
            // Nothing was promised: the accept never left. Give the invoice up.
            try? await deps.lightning.cancelInvoice(paymentHash: request.paymentHash)
            throw .store(error)
        }
        let swap = try ProviderSwapRecord(record: record, network: configuration.network)
        log("provider swap \(swap.swapID): accepted \(quote.amountSat) sat for \(quote.totalSat) sat, "
            + "\(contract.type) at \(contract.encodedAddress), timeout \(contract.terms.timeoutHeight)")
        swaps[swap.swapID] = swap
        states[swap.swapID] = .invoiceCreated
        openMailbox(swap.swapID)
        // Resuming `invoice_created` is exactly what a new swap needs: watch the invoice.
        deliver(.recover, to: swap.swapID)
        return accept.encoded
    }

    // MARK: SwapStatusRequest

    private func snapshot(for request: SwapStatusRequest, from peer: Pubky) async -> [UInt8] {
        let store = dependencies.store
        do {
            guard let stored = try await store.swap(request.swapID), stored.role == .provider,
                  !SubmarineProviderRecord.isSubmarine(stored), stored.peer == peer.description else {
                return Reject(requestID: request.requestID, error: .swapNotFound).encoded
            }
            let swap = try ProviderSwapRecord(record: stored, network: configuration.network)
            let events = try await store.events(of: request.swapID)
            let status = events.compactMap { ProviderSwapState.Kind(rawValue: $0.kind)?.status }.last ?? .invoicePending
            let lock = events.reversed().lazy.compactMap { try? ProviderSwapState(event: $0).lock }.first
            return SwapStatusSnapshot(requestID: request.requestID, swapID: request.swapID, status: status,
                                      lock: lock?.reference, timeoutHeight: swap.accept.body.timeoutHeight).encoded
        } catch {
            log("status of swap \(UntrustedText.quoted(request.swapID)) cannot be read: \(error)")
            return Reject(requestID: request.requestID, code: .internal, reason: "the provider cannot read the swap now").encoded
        }
    }

    /// A Reject for a request that failed to decode, echoing its request_id when it has one.
    static func reject(_ request: [UInt8], _ error: OffersError) -> [UInt8] {
        let id = (try? MessageEnvelope.parse(request))?.requestID ?? "unknown"
        return Reject(requestID: id, error: error).encoded
    }
}
