import Bitcoin
import Lightning

/// The payee side: making, looking up, settling and cancelling invoices.
extension LightningNetworkState {
    /// What an invoice is made from, plain or hold.
    struct InvoiceTerms {
        var amountMsat: UInt64
        var memo: String
        var expirySeconds: UInt64
        var cltvExpiry: UInt64
    }

    /// Adds a plain invoice (settled as soon as an HTLC arrives) or, with
    /// `preimage == nil`, a hold invoice for `paymentHash`.
    mutating func addInvoice(node name: String, paymentHash: [UInt8], preimage: [UInt8]?, terms: InvoiceTerms,
                             now: UInt64) throws(LightningSimError) -> AddedInvoice {
        let node = try node(name)
        guard paymentHash.count == 32 else { throw .invalidHashLength(paymentHash.count) }
        // LND's AddInvoice (plain and hold alike) checks the memo, the amount and the expiry first.
        guard terms.memo.utf8.count <= LightningNetwork.maxMemoBytes else { throw .memoTooLarge(terms.memo.utf8.count) }
        guard terms.amountMsat / 1_000 <= LightningNetwork.maxInvoiceAmountSat else {
            throw .invoiceAmountTooLarge(msat: terms.amountMsat)
        }
        guard terms.expirySeconds <= LightningNetwork.maxInvoiceExpirySeconds else {
            throw .invoiceExpiryTooLong(terms.expirySeconds)
        }
        // LND: 0 means its default delta; anything else must be at least 18 and fit 16 bits.
        let cltvExpiry = terms.cltvExpiry == 0 ? LightningNetwork.defaultCLTVExpiry : terms.cltvExpiry
        guard cltvExpiry <= UInt64(UInt16.max) else { throw .cltvExpiryTooLarge(cltvExpiry) }
        guard cltvExpiry >= LightningNetwork.minCLTVDelta else { throw .cltvExpiryTooSmall(cltvExpiry) }
        // The registry refuses a duplicate only after the terms passed (LND's order).
        guard node.invoices[paymentHash] == nil else { throw .duplicateInvoice }
        let expirySeconds = terms.expirySeconds == 0 ? LightningNetwork.defaultInvoiceExpirySeconds : terms.expirySeconds

        // The payment secret need only be unique and unguessable by others; deriving it
        // from the node key and hash makes it both without a random source.
        let secret = SHA256.hash(node.key.bytes + Array("payment secret".utf8) + paymentHash)
        let encoder = InvoiceEncoder(currency: .regtest, amountMsat: terms.amountMsat == 0 ? nil : terms.amountMsat,
                                     timestamp: now, paymentHash: paymentHash, paymentSecret: secret,
                                     description: .text(terms.memo), expirySeconds: expirySeconds,
                                     minFinalCLTVExpiryDelta: cltvExpiry)
        let signed: Invoice
        do {
            signed = try encoder.sign(with: node.key)
        } catch {
            throw .invoiceEncoding(error)
        }
        let invoice = SimulatedInvoice(
            memo: terms.memo, preimage: preimage, paymentHash: paymentHash, paymentAddress: secret,
            valueMsat: terms.amountMsat, creationDate: now, settleDate: nil, paymentRequest: signed.string,
            expirySeconds: expirySeconds, cltvExpiry: cltvExpiry, isHold: preimage == nil, state: .open,
            addIndex: node.nextAddIndex, settleIndex: 0, amountPaidMsat: 0, htlcs: [])
        // In place, so the node's invoice book is not copied for every invoice.
        nodes[name]!.invoices[paymentHash] = InvoiceEntry(invoice: invoice)
        nodes[name]!.nextAddIndex += 1
        return AddedInvoice(paymentRequest: signed.string, paymentHash: paymentHash,
                            addIndex: invoice.addIndex, paymentAddress: secret)
    }

    /// A preimage for a plain invoice made without one: derived from the node key and
    /// the invoice's add index, so unique per invoice, secret to others, and repeatable.
    func derivedPreimage(node name: String) throws(LightningSimError) -> [UInt8] {
        let node = try node(name)
        var index = [UInt8]()
        for shift in stride(from: 56, through: 0, by: -8) { index.append(UInt8(truncatingIfNeeded: node.nextAddIndex >> UInt64(shift))) }
        return SHA256.hash(node.key.bytes + Array("invoice preimage".utf8) + index)
    }

    func lookupInvoice(node name: String, paymentHash: [UInt8]) throws(LightningSimError) -> SimulatedInvoice {
        guard paymentHash.count == 32 else { throw .invalidHashLength(paymentHash.count) }
        guard let entry = try node(name).invoices[paymentHash] else { throw .invoiceNotFound }
        return entry.invoice
    }

    /// Settles an ACCEPTED hold invoice: the payee is credited, the network earns the
    /// fee, and the payer's payment succeeds with the preimage. The invoice is found by
    /// the preimage's hash, as LND does, so a wrong preimage finds no invoice ("unable
    /// to locate invoice"); LND's "preimage does not match" cannot arise that way.
    mutating func settleInvoice(node name: String, preimage: [UInt8], now: UInt64) throws(LightningSimError) {
        guard preimage.count == 32 else { throw .invalidPreimageLength(preimage.count) }
        let hash = SHA256.hash(preimage)
        guard let entry = try node(name).invoices[hash] else { throw .invoiceNotFound }
        switch entry.invoice.state {
        case .open: throw .invoiceStillOpen
        case .settled: throw .invoiceAlreadySettled
        case .canceled: throw .invoiceAlreadyCanceled
        case .accepted: break
        }
        // A plain invoice never rests in ACCEPTED: it settles when the HTLC arrives.
        guard let held = entry.held else { throw .invoiceStillOpen }

        var invoice = entry.invoice
        invoice.preimage = preimage
        resolveHeld(&invoice, held, settled: true, now: now)
        invoice.state = .settled
        invoice.settleDate = now
        invoice.settleIndex = nodes[name]!.nextSettleIndex
        nodes[name]!.nextSettleIndex += 1
        nodes[name]!.invoices[hash]!.invoice = invoice
        nodes[name]!.invoices[hash]!.held = nil

        inFlightMsat -= held.lockedMsat
        nodes[name]!.balanceMsat += held.amountMsat
        feesCollectedMsat += held.feeMsat
        publishInvoice(node: name, hash: hash)
        finishPayment(payer: held.payer, hash: hash) {
            $0.status = .succeeded
            $0.preimage = preimage
            guard let last = $0.htlcs.indices.last else { return }
            $0.htlcs[last].status = .succeeded
            $0.htlcs[last].resolveTimeNs = now * 1_000_000_000
            $0.htlcs[last].preimage = preimage
        }
    }

    /// Cancels an OPEN or ACCEPTED invoice; a held HTLC goes back to its payer with the
    /// fee, and the payment fails with INCORRECT_PAYMENT_DETAILS, as the payee's
    /// `incorrect_or_unknown_payment_details` makes LND report it. Cancelling a
    /// cancelled invoice succeeds (LND makes cancel idempotent).
    mutating func cancelInvoice(node name: String, paymentHash: [UInt8], now: UInt64) throws(LightningSimError) {
        let invoice = try lookupInvoice(node: name, paymentHash: paymentHash)
        switch invoice.state {
        case .settled: throw .invoiceAlreadySettled
        case .canceled: return
        case .open, .accepted:
            cancel(node: name, hash: paymentHash, detail: .canceledByPayee, now: now)
        }
    }

    /// Moves an invoice to CANCELED and refunds its held HTLC, if any. The payee's failure
    /// reports the height at which it accepted the HTLC, whoever cancels and whenever:
    /// LND's link fails a hold invoice's HTLC with `NewFailIncorrectDetails(amount,
    /// resolution.AcceptHeight)` (htlcswitch/link.go, getResolutionFailure).
    mutating func cancel(node name: String, hash: [UInt8], detail: PaymentFailureDetail, now: UInt64) {
        guard var entry = nodes[name]?.invoices[hash], !entry.invoice.state.isFinal else { return }
        if let held = entry.held {
            resolveHeld(&entry.invoice, held, settled: false, now: now)
            // A cancelled HTLC no longer counts in amt_paid (LND sums accepted and settled ones).
            entry.invoice.amountPaidMsat -= held.amountMsat
            inFlightMsat -= held.lockedMsat
            nodes[held.payer]!.balanceMsat += held.lockedMsat
            failHeld(payer: held.payer, hash: hash, reason: .incorrectPaymentDetails, detail,
                     height: entry.invoice.htlcs[held.htlcIndex].acceptHeight, now: now)
        }
        entry.invoice.state = .canceled
        nodes[name]!.invoices[hash]!.invoice = entry.invoice
        nodes[name]!.invoices[hash]!.held = nil
        publishInvoice(node: name, hash: hash)
    }

    /// Cancels every OPEN invoice whose BOLT11 expiry has passed, as LND's expiry
    /// watcher does. ACCEPTED invoices are left alone: only their HTLC's height counts.
    mutating func expireInvoices(now: UInt64) {
        for (name, node) in nodes {
            for (hash, entry) in node.invoices where entry.invoice.state == .open && entry.invoice.isExpired(now: now) {
                // An OPEN invoice holds no HTLC, so the detail reaches no payment.
                cancel(node: name, hash: hash, detail: .invoiceNotOpen(.canceled), now: now)
            }
        }
    }

    /// Adds a subscriber and sends it the invoice's current state at once (LND's
    /// SubscribeSingleInvoice does); a final invoice ends the stream right away.
    mutating func subscribeInvoice(node name: String, paymentHash: [UInt8],
                                   _ continuation: AsyncStream<SimulatedInvoice>.Continuation) throws(LightningSimError) {
        let invoice = try lookupInvoice(node: name, paymentHash: paymentHash)
        continuation.yield(invoice)
        if invoice.state.isFinal {
            continuation.finish()
        } else {
            nodes[name]!.invoices[paymentHash]!.subscribers.append(continuation)
        }
    }

    private func resolveHeld(_ invoice: inout SimulatedInvoice, _ held: HeldHTLC, settled: Bool, now: UInt64) {
        invoice.htlcs[held.htlcIndex].state = settled ? .settled : .canceled
        invoice.htlcs[held.htlcIndex].resolveTime = now
    }
}
