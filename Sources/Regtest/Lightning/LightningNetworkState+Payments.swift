import Bitcoin
import Lightning

/// The payer side: checking a payment request, routing, and delivering the HTLC.
extension LightningNetworkState {
    /// A payment as `SendPaymentV2` asks for it.
    struct PaymentOrder {
        var payer: String
        var paymentRequest: String
        /// Only for an any-amount invoice; 0 otherwise (LND's `amt_msat`).
        var amountMsat: UInt64
        var feeLimitMsat: UInt64
        /// 0: the policy's maximum.
        var cltvLimit: UInt32
        var timeoutSeconds: UInt32
    }

    /// Checks the order the way LND's router backend does before any attempt (each
    /// refusal throws, nothing is recorded), then records the payment IN_FLIGHT, tells
    /// `continuation`, and makes the one attempt the simulator needs: routing is
    /// instantaneous, so the outcome (FAILED, SUCCEEDED, or IN_FLIGHT at a hold
    /// invoice) is known before this returns.
    mutating func send(_ order: PaymentOrder, tip: Int, now: UInt64,
                       _ continuation: AsyncStream<SimulatedPayment>.Continuation) throws(LightningSimError) {
        let payer = try node(order.payer)
        guard order.timeoutSeconds > 0 else { throw .timeoutRequired }
        guard order.cltvLimit <= policy.maxCLTVExpiry else {
            throw .cltvLimitTooLarge(limit: order.cltvLimit, max: policy.maxCLTVExpiry)
        }
        let cltvLimit = order.cltvLimit == 0 ? policy.maxCLTVExpiry : order.cltvLimit

        let invoice: Invoice
        do {
            invoice = try InvoiceDecoder.decode(order.paymentRequest)
        } catch {
            throw .invalidPaymentRequest(error)
        }
        guard invoice.currency == .regtest else { throw .wrongNetwork(prefix: invoice.currency.prefix) }
        guard !invoice.isExpired(now: now) else { throw .invoiceExpired(validUntil: invoice.expiresAt) }
        let amountMsat: UInt64
        if let stated = invoice.amountMsat {
            guard order.amountMsat == 0 else { throw .amountNotAllowed }
            amountMsat = stated
        } else {
            guard order.amountMsat > 0 else { throw .amountRequired }
            amountMsat = order.amountMsat
        }
        guard invoice.payeeNodeID != payer.key.publicKey else { throw .selfPayment }
        let hash = invoice.paymentHash
        if let previous = payer.payments[hash]?.payment {
            switch previous.status {
            case .initiated, .inFlight: throw .paymentInFlight
            case .succeeded: throw .alreadyPaid
            // LND lets a failed payment be tried again; the new attempt replaces it.
            case .failed: break
            }
        }

        let payment = SimulatedPayment(
            paymentHash: hash, valueMsat: amountMsat, feeMsat: 0, preimage: nil,
            paymentRequest: invoice.string, status: .initiated, failureReason: .none, failureDetail: nil,
            creationDate: now, paymentIndex: payer.nextPaymentIndex,
            timeoutAt: now + UInt64(order.timeoutSeconds), cltvLimit: order.cltvLimit)
        nodes[order.payer]!.nextPaymentIndex += 1
        nodes[order.payer]!.payments[hash] = PaymentEntry(payment: payment, subscribers: [continuation])
        publishPayment(node: order.payer, hash: hash)

        switch route(order, invoice: invoice, amountMsat: amountMsat, cltvLimit: cltvLimit) {
        case .failure(let failure):
            finishPayment(payer: order.payer, hash: hash) {
                $0.status = .failed
                $0.failureReason = failure.reason
                $0.failureDetail = failure.detail
            }
        case .success(let (payee, feeMsat)):
            // LND's arithmetic: the route's deltas lengthen the payer's HTLC only; the
            // payee's expires at the payer's tip + final delta + BlockPadding.
            let expiry = policy.finalHTLCExpiry(tip: tip, finalCLTVDelta: invoice.minFinalCLTVExpiryDelta)
            let attempt = SimulatedHTLCAttempt(
                attemptID: nodes[order.payer]!.nextAttemptID, status: .inFlight, amountMsat: amountMsat, feeMsat: feeMsat,
                totalTimeLock: tip + Int(policy.totalCLTVDelta(finalCLTVDelta: invoice.minFinalCLTVExpiryDelta)),
                finalExpiry: expiry, routingNodeKey: SimulatedHTLCAttempt.routingNodeKey, payeeKey: invoice.payeeNodeID,
                paymentAddress: invoice.paymentSecret, attemptTimeNs: now * 1_000_000_000, resolveTimeNs: nil,
                failure: nil, preimage: nil)
            nodes[order.payer]!.nextAttemptID += 1
            // The HTLC goes out: IN_FLIGHT with its attempt, whatever the payee then does.
            updatePayment(payer: order.payer, hash: hash) {
                $0.status = .inFlight
                $0.feeMsat = feeMsat
                $0.htlcs.append(attempt)
            }
            publishPayment(node: order.payer, hash: hash)
            deliver(payer: order.payer, payee: payee, hash: hash, amountMsat: amountMsat, feeMsat: feeMsat,
                    tip: tip, expiryHeight: expiry, now: now)
        }
    }

    struct RouteFailure: Error {
        var reason: PaymentFailureReason
        var detail: PaymentFailureDetail
    }

    /// Finds the one-hop route and its fee, or why there is none. Order: a route must
    /// exist (both ends online) before its CLTV and fee can be judged, and the fee must
    /// be known before the balance can be.
    private func route(_ order: PaymentOrder, invoice: Invoice, amountMsat: UInt64,
                       cltvLimit: UInt32) -> Result<(payee: String, feeMsat: UInt64), RouteFailure> {
        let payer = nodes[order.payer]!
        guard payer.isOnline else { return .failure(RouteFailure(reason: .noRoute, detail: .payerOffline)) }
        guard let payee = nodeNames[invoice.payeeNodeID] else {
            return .failure(RouteFailure(reason: .noRoute, detail: .unknownDestination))
        }
        guard nodes[payee]!.isOnline else { return .failure(RouteFailure(reason: .noRoute, detail: .payeeOffline)) }
        let totalDelta = policy.totalCLTVDelta(finalCLTVDelta: invoice.minFinalCLTVExpiryDelta)
        guard totalDelta <= UInt64(cltvLimit) else {
            return .failure(RouteFailure(reason: .noRoute, detail: .cltvLimitExceeded(totalDelta: totalDelta, limit: cltvLimit)))
        }
        let fee = policy.feeMsat(forAmount: amountMsat)
        guard fee <= order.feeLimitMsat else {
            return .failure(RouteFailure(reason: .noRoute, detail: .feeLimitExceeded(feeMsat: fee, limitMsat: order.feeLimitMsat)))
        }
        let (needed, overflow) = amountMsat.addingReportingOverflow(fee)
        // LND's first hop carries only the link's bandwidth, which leaves the reserve and,
        // for the funder, the anchors and the fee buffer.
        guard !overflow, needed <= payer.spendableMsat else {
            let shown = overflow ? UInt64.max : needed
            return .failure(RouteFailure(reason: .insufficientBalance,
                                         detail: .insufficientBalance(neededMsat: shown, balanceMsat: payer.balanceMsat,
                                                                      spendableMsat: payer.spendableMsat)))
        }
        return .success((payee, fee))
    }

    /// The HTLC reaches the payee, who checks it against its invoice: a plain invoice
    /// settles at once, a hold invoice goes ACCEPTED and the money stays in flight.
    private mutating func deliver(payer: String, payee: String, hash: [UInt8], amountMsat: UInt64, feeMsat: UInt64,
                                  tip: Int, expiryHeight: Int, now: UInt64) {
        guard let entry = nodes[payee]!.invoices[hash] else {
            return failHeld(payer: payer, hash: hash, reason: .incorrectPaymentDetails, .unknownInvoice,
                            height: tip, now: now)
        }
        guard entry.invoice.state == .open else {
            return failHeld(payer: payer, hash: hash, reason: .incorrectPaymentDetails,
                            .invoiceNotOpen(entry.invoice.state), height: tip, now: now)
        }
        let locked = amountMsat + feeMsat
        nodes[payer]!.balanceMsat -= locked
        inFlightMsat += locked

        var invoice = entry.invoice
        invoice.htlcs.append(InvoiceHTLC(amountMsat: amountMsat, acceptHeight: tip, expiryHeight: expiryHeight,
                                         state: .accepted, acceptTime: now, resolveTime: nil))
        invoice.state = .accepted
        // LND counts accepted and settled HTLCs of a non-open invoice in amt_paid.
        invoice.amountPaidMsat += amountMsat
        nodes[payee]!.invoices[hash]!.invoice = invoice
        nodes[payee]!.invoices[hash]!.held = HeldHTLC(payer: payer, amountMsat: amountMsat, feeMsat: feeMsat,
                                                      htlcIndex: invoice.htlcs.count - 1)
        if let preimage = invoice.preimage, !nodes[payee]!.holdsHTLCs {
            // A plain invoice: the payee knows the preimage and settles straight away.
            // Cannot throw: the invoice is ACCEPTED with a held HTLC and this preimage.
            try? settleInvoice(node: payee, preimage: preimage, now: now)
        } else {
            // A hold invoice, or a payee holding its HTLCs (`hub_ln_hold`): ACCEPTED until
            // the payee decides or the HTLC nears its expiry.
            publishInvoice(node: payee, hash: hash)
            // LND's expiry watcher looks at a new HTLC at once: one that arrives already
            // inside the hold expiry delta is cancelled without waiting for a block.
            cancelHeldNearExpiry(height: tip, now: now)
        }
    }

    /// The payee failed the payment's HTLC (BOLT 4's incorrect_or_unknown_payment_details
    /// from the last hop): its attempt FAILED, and the payment with it. Once LND's
    /// `timeout_seconds` has passed, LND reports such a failure as FAILURE_REASON_TIMEOUT,
    /// however the HTLC came back.
    mutating func failHeld(payer: String, hash: [UInt8], reason: PaymentFailureReason, _ detail: PaymentFailureDetail,
                           height: Int, now: UInt64) {
        finishPayment(payer: payer, hash: hash) {
            $0.status = .failed
            $0.failureReason = now >= $0.timeoutAt ? .timeout : reason
            // LND's fee counts settled HTLCs only: a failed payment paid none.
            $0.feeMsat = 0
            $0.failureDetail = detail
            guard let last = $0.htlcs.indices.last else { return }
            $0.htlcs[last].status = .failed
            $0.htlcs[last].resolveTimeNs = now * 1_000_000_000
            $0.htlcs[last].failure = SimulatedHTLCAttempt.Failure(code: "INCORRECT_OR_UNKNOWN_PAYMENT_DETAILS",
                                                                  sourceIndex: 2, height: height)
        }
    }

    mutating func updatePayment(payer: String, hash: [UInt8], _ change: (inout SimulatedPayment) -> Void) {
        guard nodes[payer]?.payments[hash] != nil else { return }
        change(&nodes[payer]!.payments[hash]!.payment)
    }

    /// Applies a final change and tells the payer's streams, which then end.
    mutating func finishPayment(payer: String, hash: [UInt8], _ change: (inout SimulatedPayment) -> Void) {
        updatePayment(payer: payer, hash: hash, change)
        publishPayment(node: payer, hash: hash)
    }

    func payment(node name: String, paymentHash: [UInt8]) throws(LightningSimError) -> SimulatedPayment {
        guard let entry = try node(name).payments[paymentHash] else { throw .paymentNotFound }
        return entry.payment
    }

    /// Adds a subscriber to a payment (LND's TrackPaymentV2): its current state at
    /// once, then every change until it is final.
    mutating func trackPayment(node name: String, paymentHash: [UInt8],
                               _ continuation: AsyncStream<SimulatedPayment>.Continuation) throws(LightningSimError) {
        let current = try payment(node: name, paymentHash: paymentHash)
        continuation.yield(current)
        if current.status.isFinal {
            continuation.finish()
        } else {
            nodes[name]!.payments[paymentHash]!.subscribers.append(continuation)
        }
    }

    // MARK: chain

    /// Cancels every accepted hold-invoice HTLC that the chain at `height` has brought
    /// within the policy's hold expiry delta (LND: `height + delta >= expiry_height`),
    /// refunding its payer before the HTLC could go to chain.
    mutating func cancelHeldNearExpiry(height: Int, now: UInt64) {
        let delta = Int(policy.holdExpiryDelta)
        for (name, node) in nodes {
            for (hash, entry) in node.invoices {
                guard let held = entry.held else { continue }
                let expiry = entry.invoice.htlcs[held.htlcIndex].expiryHeight
                if height + delta >= expiry {
                    cancel(node: name, hash: hash, detail: .heldHTLCNearExpiry(expiryHeight: expiry, height: height),
                           now: now)
                }
            }
        }
    }
}
