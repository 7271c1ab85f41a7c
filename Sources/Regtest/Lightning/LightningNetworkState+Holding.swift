/// A payee that holds the HTLCs it is paid (`hub_ln_hold`): the test's stand-in for a
/// payee that answers with a hold invoice and decides late, or never, whether to settle.
extension LightningNetworkState {
    mutating func setHoldsHTLCs(node name: String, _ hold: Bool) throws(LightningSimError) {
        _ = try node(name)
        nodes[name]!.holdsHTLCs = hold
    }

    /// Every HTLC `name` holds now, by payment hash.
    func heldHTLCs(node name: String) throws(LightningSimError) -> [HeldHTLCReport] {
        let node = try node(name)
        return node.invoices.compactMap { hash, entry -> HeldHTLCReport? in
            guard let held = entry.held else { return nil }
            let htlc = entry.invoice.htlcs[held.htlcIndex]
            let attempt = nodes[held.payer]?.payments[hash]?.payment.htlcs.last
            return HeldHTLCReport(paymentHash: hash, payer: held.payer, amountMsat: held.amountMsat,
                                  acceptHeight: htlc.acceptHeight, expiryHeight: htlc.expiryHeight,
                                  cancelHeight: htlc.expiryHeight - Int(policy.holdExpiryDelta),
                                  payerTimeLock: attempt?.totalTimeLock)
        }.sorted { $0.paymentHash.lexicographicallyPrecedes($1.paymentHash) }
    }

    /// The payee decides on a held HTLC of a plain invoice: settles it with the invoice's
    /// own preimage (LND's SettleInvoice, with the same refusals: an OPEN invoice is "still
    /// open", a cancelled one "already canceled") or cancels it (CancelInvoice). A hold
    /// invoice made over REST has no preimage here: its payee settles it over REST.
    mutating func releaseHeld(node name: String, paymentHash: [UInt8], settle: Bool, now: UInt64) throws(LightningSimError) {
        let invoice = try lookupInvoice(node: name, paymentHash: paymentHash)
        guard settle else { return try cancelInvoice(node: name, paymentHash: paymentHash, now: now) }
        guard !invoice.isHold else { throw .preimageUnknown }
        // A plain invoice holds its preimage from creation; LND's errors come from the state.
        guard let preimage = invoice.preimage else { throw .preimageUnknown }
        try settleInvoice(node: name, preimage: preimage, now: now)
    }
}
