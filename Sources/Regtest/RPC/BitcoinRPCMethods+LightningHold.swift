import Bitcoin

/// `hub_ln_hold` and `hub_ln_release`: a payee that holds the HTLCs it is paid and decides
/// when, or whether, to release the preimage, as a payee with a hold invoice does. The
/// hold-expiry rule of LND still applies to what it holds: an HTLC is cancelled once the
/// tip is within 12 blocks of its expiry, so the latest a holding payee can settle is the
/// block before that (a test of a payer's `cltv_limit` settles there).
extension BitcoinRPCMethods {
    static func lightningHoldControl(_ lightning: HubLightning) -> [RPCMethod] {
        [
            RPCMethod("hub_ln_hold",
                      summary: "Makes a Lightning node hold the HTLCs it is paid (true: an HTLC reaching one of its plain "
                          + "invoices stays ACCEPTED, as at a hold invoice, until hub_ln_release or LND's hold-expiry "
                          + "cancel 12 blocks before the HTLC's expiry; false: settle at once again, what it holds stays "
                          + "held); without hold, only reports.",
                      arguments: [RPCArgument("name", .string, "The node's name"),
                                  RPCArgument("hold", .bool, default: "unchanged", "Hold the HTLCs it is paid from now on")],
                      result: "{...}    (json object) name, hold, held: [{payment_hash, payer, amount_msat, accept_height, "
                          + "expiry_height, cancel_height (where LND cancels it), payer_time_lock (the route's "
                          + "total_time_lock)}]",
                      examples: [.cli("\"erin\" true"), .rpc("\"erin\", true")]) { params in
                let name = params.string(0) ?? ""
                do {
                    if case .bool(let hold)? = params[1] { try lightning.network.setHoldsHTLCs(node: name, hold) }
                    let (holds, held) = try lightning.network.heldHTLCs(node: name)
                    var result = OrderedJSONObject()
                    result.add("name", .string(name))
                    result.add("hold", .bool(holds))
                    result.add("held", .array(held.map(heldJSON)))
                    return result.json
                } catch {
                    throw lightningError(error)
                }
            },
            RPCMethod("hub_ln_release",
                      summary: "The holding payee decides on a held HTLC: settle (with its invoice's preimage, as LND's "
                          + "SettleInvoice: refused once the invoice is cancelled) or cancel (CancelInvoice: the "
                          + "payment fails back).",
                      arguments: [RPCArgument("name", .string, "The payee node's name"),
                                  RPCArgument("payment_hash", .string, "The held invoice's payment hash, hex"),
                                  RPCArgument("action", .string, "settle or cancel")],
                      result: "{...}    (json object) name, payment_hash, action, state (the invoice's, after)",
                      examples: [.cli("\"erin\" \"<hash>\" \"settle\""), .rpc("\"erin\", \"<hash>\", \"cancel\"")]) { params in
                let name = params.string(0) ?? ""
                let hash = try params.hashHex(1, name: "payment_hash")
                let action = params.string(2) ?? ""
                guard action == "settle" || action == "cancel" else {
                    throw RPCError.invalidParameter("action must be settle or cancel, not \"\(action)\"")
                }
                do {
                    try lightning.network.releaseHeld(node: name, paymentHash: hash, settle: action == "settle")
                    let invoice = try lightning.network.lookupInvoice(node: name, paymentHash: hash)
                    var result = OrderedJSONObject()
                    result.add("name", .string(name))
                    result.add("payment_hash", .string(hash.hex))
                    result.add("action", .string(action))
                    result.add("state", .string(invoice.state.lndName))
                    return result.json
                } catch {
                    throw lightningError(error)
                }
            },
        ]
    }

    private static func heldJSON(_ held: HeldHTLCReport) -> OrderedJSON {
        var entry = OrderedJSONObject()
        entry.add("payment_hash", .string(held.paymentHash.hex))
        entry.add("payer", .string(held.payer))
        entry.add("amount_msat", .int(held.amountMsat))
        entry.add("accept_height", .int(held.acceptHeight))
        entry.add("expiry_height", .int(held.expiryHeight))
        entry.add("cancel_height", .int(held.cancelHeight))
        entry.add("payer_time_lock", held.payerTimeLock.map { .int($0) } ?? .null)
        return entry.json
    }
}
