import Transport

/// Human output of the swap commands: the route, the candidates left out and why, the fee
/// breakdown, and for `pay`/`swap-out` a last line that says exactly how far the money got.
extension Render {
    /// One live progress line: `[  12.3 s] stage: detail`.
    static func progress(_ line: JSONValue) -> String {
        let milliseconds = line["elapsed_ms"]?.int64Value ?? 0
        let tenths = milliseconds / 100
        let elapsed = "\(tenths / 10).\(tenths % 10) s"
        let padded = String(repeating: " ", count: max(0, 7 - elapsed.count)) + elapsed
        guard let stage = line["stage"]?.stringValue else { return "[\(padded)] " + generic(line) }
        return "[\(padded)] \(stage): \(text(line["detail"]))"
    }

    /// `pay` and `swap-out`.
    static func payment(_ result: JSONValue) -> String {
        var out: [String] = []
        let amount = sats(result["amount_sat"])
        let recipient = result["contact"]?.stringValue.map { "\($0) (\(text(result["destination"])))" }
            ?? (result["own_wallet"]?.boolValue == true ? "this node's wallet (\(text(result["destination"])))"
                : text(result["destination"]))
        if result["route"]?.stringValue == "direct" {
            out.append(fields([("paid", "\(amount) to \(recipient)"),
                               ("route", result["rail"]?["reason"]?.stringValue ?? "directly from on-chain savings")]))
            out.append("")
            out.append(breakdown([("amount", result["amount_sat"]), ("on-chain fee", result["onchain_fee_sat"])],
                                 total: ("total from savings", result["total_sat"])))
            out.append("")
            out.append(fields([("transaction", text(result["txid"]))]))
            out.append("sent: the transaction is broadcast and settling on-chain")
            return out.joined(separator: "\n")
        }
        if result["route"]?.stringValue == "submarine" { return submarine(result) }
        if result["route"]?.stringValue == "direct_lightning" { return directLightning(result) }
        out.append(fields([("paid", "\(amount) to \(recipient)"), ("route", routeLine(result))]))
        if let why = result["rail"]?["reason"]?.stringValue { out.append(fields([("why", why)])) }
        out += skippedLines(result)
        out.append("")
        out.append(feeBreakdown(result["fees"]))
        out.append("")
        out.append(fields([("swap", text(result["swap_id"])), ("claim", text(result["claim_txid"]))]))
        if result["settlement"]?.stringValue == "confirmed" {
            out.append("sent: the claim is broadcast and confirmed")
        } else {
            out.append("sent: the claim is broadcast; the transfer is committed and settling on-chain")
        }
        return out.joined(separator: "\n")
    }

    /// `swap-in`, and `pay` to a contact that takes only Lightning: the invoice is paid, the
    /// preimage is the proof, and savings paid the lock and its fee.
    static func submarine(_ result: JSONValue) -> String {
        let recipient = result["own_invoice"]?.boolValue == true ? "this node's Lightning balance"
            : (result["contact"]?.stringValue.map { "\($0)'s Lightning invoice" } ?? "the invoice")
        let provider = result["provider"]?["name"]?.stringValue ?? "?"
        var out: [String] = []
        out.append(fields([("paid", "\(sats(result["amount_sat"])) to \(recipient)"),
                           ("route", "from on-chain savings through \(provider) (submarine swap)")]))
        if let why = result["rail"]?["reason"]?.stringValue { out.append(fields([("why", why)])) }
        out.append("")
        out.append(breakdown([("amount", result["amount_sat"]), ("service fee", result["service_fee_sat"]),
                              ("provider's claim fee", result["provider_onchain_fee_sat"])],
                             total: ("locked", result["lock_total_sat"])))
        out.append(fields([("lock's own fee", sats(result["lock_fee_sat"])),
                           ("from savings", sats(result["savings_spent_sat"]))]))
        out.append("")
        out.append(fields([("swap", text(result["swap_id"])), ("lock", text(result["lock_txid"])),
                           ("preimage", text(result["preimage"]))]))
        out.append("paid: the preimage is the proof of payment; the provider claims the lock it paid for")
        return out.joined(separator: "\n")
    }

    /// `pay` straight from the spending balance to the contact's invoice.
    static func directLightning(_ result: JSONValue) -> String {
        var out: [String] = []
        out.append(fields([("paid", "\(sats(result["amount_sat"])) to \(text(result["contact"]))'s Lightning invoice"),
                           ("route", result["rail"]?["reason"]?.stringValue ?? "directly on Lightning from spending")]))
        out.append("")
        out.append(fields([("routing fee", msat(result["routing_fee_msat"])), ("payment hash", text(result["payment_hash"])),
                           ("preimage", text(result["preimage"]))]))
        out.append("paid: the preimage is the proof of payment")
        return out.joined(separator: "\n")
    }

    /// `quote`.
    static func quote(_ result: JSONValue) -> String {
        var out: [String] = []
        var pairs: [(String, String)] = [("amount", sats(result["amount_sat"]))]
        if let contact = result["contact"]?.stringValue {
            pairs.append(("to", result["destination"] == nil ? "\(contact) (Lightning)" : "\(contact) (\(text(result["destination"])))"))
        }
        pairs.append(("route", result["provider"] == nil ? "direct, no provider" : routeLine(result)))
        if let why = result["rail"]?["reason"]?.stringValue { pairs.append(("why", why)) }
        let committable = result["contact"] != nil || result["rail"]?["option"]?.stringValue == "submarine_swap"
        if let id = result["quote_id"]?.stringValue {
            if !committable {
                // Without a contact there is no destination to commit it to: an estimate only.
                pairs.append(("quote", "\(id): an estimate (no contact, so `pay --quote` cannot commit it)"))
            } else {
                let until = result["valid_until_unix"]?.int64Value.map(JSONNaming.iso8601) ?? text(result["valid_until_unix"])
                pairs.append(("quote", "\(id), valid for \(text(result["valid_for_seconds"])) s (until \(until))"))
            }
        }
        out.append(fields(pairs))
        out += skippedLines(result)
        out.append("")
        out.append(feeBreakdown(result["fees"]))
        if let contact = result["contact"]?.stringValue, let id = result["quote_id"]?.stringValue {
            out.append("quote only: nothing was paid; commit it with `peernode pay \(contact) \(text(result["amount_sat"])) --quote \(id)`")
        } else if result["provider"] == nil {
            out.append("quote only: nothing was paid; `pay` takes this direct route while the balance covers it")
        } else {
            out.append("quote only: nothing was paid; for a quote `pay` can commit, ask with "
                       + "`peernode quote \(text(result["amount_sat"])) --contact <name>`")
        }
        return out.joined(separator: "\n")
    }

    /// `max`.
    static func maxSendable(_ result: JSONValue) -> String {
        var out: [String] = []
        if result["source"]?.stringValue == "savings" || result["route"]?.stringValue == "direct_lightning" {
            var pairs: [(String, String)] = [("max", sats(result["max_sat"])), ("route", text(result["route"]))]
            if result["source"]?.stringValue == "savings" {
                pairs.append(("savings", "\(sats(result["savings_sat"])) in \(text(result["coins"])) coin(s)"))
            } else {
                pairs.append(("budget", "\(sats(result["budget_sat"])) (spending balance \(sats(result["balance_sat"])) "
                                  + "minus \(sats(result["routing_reserve_sat"])) routing reserve)"))
            }
            if let provider = result["provider"] { pairs.append(("provider", text(provider["name"]))) }
            pairs.append(("found by", text(result["outcome"])))
            out.append(fields(pairs))
            out += skippedLines(result)
            if let fees = result["fees"] {
                out.append("")
                out.append(breakdown([("amount", fees["amount_sat"]), ("service fee", fees["service_fee_sat"]),
                                      ("provider's claim fee", fees["provider_onchain_fee_sat"])],
                                     total: ("locked", fees["lock_total_sat"])))
            } else if let fee = result["onchain_fee_sat"] {
                out.append(fields([("on-chain fee", sats(fee))]))
            }
            return out.joined(separator: "\n")
        }
        out.append(fields([("max", sats(result["max_sat"])), ("route", routeLine(result)),
                           ("budget", "\(sats(result["budget_sat"])) (spending balance \(sats(result["balance_sat"])) "
                                + "minus \(sats(result["routing_reserve_sat"])) routing reserve)"),
                           ("found by", "\(text(result["outcome"])), \(text(result["rounds"])) quote(s)")]))
        out += skippedLines(result)
        out.append("")
        out.append(feeBreakdown(result["fees"]))
        return out.joined(separator: "\n")
    }

    private static func routeLine(_ result: JSONValue) -> String {
        guard let provider = result["provider"] else { return "-" }
        var line = "swap through \(text(provider["name"])) (\(text(provider["pubky"])))"
        if let type = provider["contract_type"]?.stringValue { line += ", \(type) contract" }
        if let alternatives = result["alternatives"]?.arrayValue, !alternatives.isEmpty {
            line += ", the cheapest of \(alternatives.count + 1)"
        }
        return line
    }

    private static func skippedLines(_ result: JSONValue) -> [String] {
        let skipped = result["skipped"]?.arrayValue ?? []
        guard !skipped.isEmpty else { return [] }
        return ["skipped:"] + skipped.map { "  \(text($0["contact"])): \(text($0["reason"]))" }
    }

    private static func feeBreakdown(_ fees: JSONValue?) -> String {
        guard let fees else { return "fees: -" }
        if fees["lock_total_sat"] != nil {
            // A submarine swap: savings pay the lock (X and the provider's fees) and its own fee.
            return breakdown([("amount", fees["amount_sat"]), ("service fee", fees["service_fee_sat"]),
                              ("provider's claim fee", fees["provider_onchain_fee_sat"]), ("lock's own fee", fees["lock_fee_sat"])],
                             total: ("total from savings (at most)", fees["spend_max_sat"]))
        }
        if fees["service_fee_sat"] == nil {
            return breakdown([("amount", fees["amount_sat"]), ("fee", fees["fees_total_sat"])],
                             total: ("total (at most)", fees["spend_max_sat"]))
        }
        return breakdown([("amount", fees["amount_sat"]), ("service fee", fees["service_fee_sat"]),
                          ("provider on-chain fee", fees["provider_onchain_fee_sat"]), ("claim fee", fees["claim_fee_sat"]),
                          ("routing fee (at most)", fees["routing_fee_max_sat"])],
                         total: ("total from spending balance (at most)", fees["spend_max_sat"]))
    }

    /// Labelled amounts, right-aligned, with a rule and the total.
    private static func breakdown(_ rows: [(String, JSONValue?)], total: (String, JSONValue?)) -> String {
        let all = rows + [total]
        let labelWidth = all.map(\.0.count).max() ?? 0
        let amounts = all.map { sats($0.1) }
        let amountWidth = amounts.map(\.count).max() ?? 0
        func line(_ label: String, _ amount: String) -> String {
            "  " + label + String(repeating: " ", count: labelWidth - label.count + 2)
                + String(repeating: " ", count: amountWidth - amount.count) + amount
        }
        var lines = ["fees:"]
        for (index, row) in rows.enumerated() { lines.append(line(row.0, amounts[index])) }
        lines.append("  " + String(repeating: "-", count: labelWidth + 2 + amountWidth))
        lines.append(line(total.0, amounts[amounts.count - 1]))
        return lines.joined(separator: "\n")
    }
}
