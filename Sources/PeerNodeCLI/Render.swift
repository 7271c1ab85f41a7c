import Transport

/// Human output for the daemon's results: short labelled lines and aligned tables.
/// `--json` bypasses all of this and prints the result as the daemon sent it.
enum Render {
    static func text(_ value: JSONValue?) -> String {
        switch value {
        case .string(let text)?: return text
        case .number(let text)?: return text
        case .bool(let flag)?: return flag ? "yes" : "no"
        case .null?, nil: return "-"
        case let other?: return other.canonicalString
        }
    }

    static func sats(_ value: JSONValue?) -> String {
        guard case .number(let digits)? = value else { return text(value) }
        // Thousands separators make amounts readable at a glance: 1,250,000 sat.
        let negative = digits.hasPrefix("-")
        let body = Array(negative ? digits.dropFirst() : Substring(digits))
        var grouped = ""
        for (index, character) in body.enumerated() {
            if index > 0 && (body.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(character)
        }
        return (negative ? "-" : "") + grouped + " sat"
    }

    static func table(_ header: [String], _ rows: [[String]]) -> String {
        var widths = header.map(\.count)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: "  ")
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }

    static func fields(_ pairs: [(String, String)]) -> String {
        let width = pairs.map(\.0.count).max() ?? 0
        return pairs.map { "\($0.0):\(String(repeating: " ", count: width - $0.0.count + 1))\($0.1)" }.joined(separator: "\n")
    }

    static func status(_ result: JSONValue) -> String {
        var pairs: [(String, String)] = [
            ("network", text(result["network"])), ("pubky", text(result["pubky"])), ("listening", text(result["listen"])),
            ("tip height", result["tip_height"] == .null ? "unknown (\(text(result["chain_error"])))" : text(result["tip_height"])),
            ("wallet", "\(sats(result["wallet"]?["confirmed_sat"])) confirmed, \(sats(result["wallet"]?["unconfirmed_sat"])) unconfirmed"),
            ("lightning", result["lightning"] == .null ? "unknown (\(text(result["lightning_error"])))"
                : sats(result["lightning"]?["balance_sat"])),
            ("peers", text(result["peers"])),
            ("provider", result["provider"]?.boolValue == true ? "on" : "off"),
        ]
        let engines = [("provider", result["engines"]?["provider"]), ("client", result["engines"]?["client"])]
            .map { "\($0.0) \($0.1?.boolValue == true ? "wired" : "not wired")" }
        pairs.append(("swap engines", engines.joined(separator: ", ")))
        return fields(pairs)
    }

    static func contact(_ contact: JSONValue?, verb: String) -> String {
        let node = contact?["node_pubky"].flatMap { $0 == contact?["pubky"] ? nil : $0 }
        return "\(verb) \(text(contact?["name"])) (\(text(contact?["pubky"]))"
            + (node.map { ", node key \(text($0))" } ?? "")
            + " at \(text(contact?["host"])):\(text(contact?["port"]))"
            + (contact?["address_from"]?.stringValue == "pkarr" ? ", found through pkarr" : "") + ")"
    }

    static func contacts(_ result: JSONValue) -> String {
        let list = result["contacts"]?.arrayValue ?? []
        if list.isEmpty { return "no contacts; add one with `peernode contacts add <name> <pubky> [<host:port>]`" }
        return table(["NAME", "PUBKY", "ADDRESS"], list.map { contact in
            [text(contact["name"]), text(contact["pubky"]), "\(text(contact["host"])):\(text(contact["port"]))"
                + (contact["address_from"]?.stringValue == "pkarr" ? " (pkarr)" : "")]
        })
    }

    static func balance(_ result: JSONValue) -> String {
        fields([("confirmed", sats(result["confirmed_sat"])), ("unconfirmed", sats(result["unconfirmed_sat"])),
                ("immature", sats(result["immature_sat"])), ("total", sats(result["total_sat"])),
                ("synced to", text(result["synced_height"]))])
    }

    static func sent(_ result: JSONValue) -> String {
        fields([("sent", sats(result["amount_sat"])), ("to", text(result["address"])), ("txid", text(result["txid"])),
                ("fee", "\(sats(result["fee_sat"])) (\(text(result["fee_rate_sat_vb"])) sat/vB, \(text(result["vsize"])) vB)"),
                ("total", sats(result["total_sat"]))])
    }

    static func offers(_ result: JSONValue) -> String {
        let offers = result["offers"]?.arrayValue ?? []
        var out: [String] = []
        if offers.isEmpty {
            out.append("no offers")
        } else {
            out.append(table(["CONTACT", "MIN", "MAX", "BASE FEE", "PPM", "ON-CHAIN FEE", "CONFS", "TIMEOUT", "FROM"], offers.map { offer in
                [text(offer["contact"]), sats(offer["min_amount_sat"]), sats(offer["max_amount_sat"]), sats(offer["base_fee_sat"]),
                 text(offer["fee_ppm"]), sats(offer["onchain_fee_sat"]), text(offer["required_confirmations"]),
                 "\(text(offer["htlc_timeout_blocks"])) blocks", offer["source"]?.stringValue ?? "offer"]
            }))
        }
        let skipped = result["skipped"]?.arrayValue ?? []
        if !skipped.isEmpty {
            out.append("")
            out.append("skipped:")
            for entry in skipped { out.append("  \(text(entry["contact"])): \(text(entry["reason"]))") }
        }
        return out.joined(separator: "\n")
    }

    static func swaps(_ result: JSONValue) -> String {
        let list = result["swaps"]?.arrayValue ?? []
        let payments = result["payments"]?.arrayValue ?? []
        var out = list.isEmpty ? "no swaps" : swapTable(list)
        // Paid submarine swaps: the preimage is the payer's proof, too long for the table.
        let proofs = list.filter { $0["preimage"]?.stringValue != nil }
        if !proofs.isEmpty {
            out += "\n\nproofs of payment (preimage, and where it was learned):\n"
            out += proofs.map { "  \(String(text($0["id"]).prefix(12)))  \(text($0["preimage"])) (\(text($0["preimage_source"])))" }
                .joined(separator: "\n")
        }
        let onLightning = payments.filter { $0["route"]?.stringValue == "direct_lightning" }
        let fromSavings = payments.filter { $0["route"]?.stringValue != "direct_lightning" }
        if !fromSavings.isEmpty {
            out += "\n\npaid from on-chain savings (no swap):\n"
            out += table(["TXID", "AMOUNT", "TO", "FEE", "AT"], fromSavings.map { payment in
                [String(text(payment["txid"]).prefix(12)), sats(payment["amount_sat"]),
                 "\(text(payment["contact"])) (\(String(text(payment["destination"]).prefix(14)))…)", sats(payment["onchain_fee_sat"]),
                 payment["at"]?.int64Value.map(JSONNaming.iso8601) ?? "-"]
            })
        }
        if !onLightning.isEmpty {
            out += "\n\npaid from spending on Lightning (no swap):\n"
            out += table(["PAYMENT HASH", "AMOUNT", "TO", "STATUS", "ROUTING FEE", "AT"], onLightning.map { payment in
                [String(text(payment["payment_hash"]).prefix(12)), sats(payment["amount_sat"]), text(payment["contact"]),
                 text(payment["status"]), payment["routing_fee_msat"].map { msat($0) } ?? "-",
                 payment["at"]?.int64Value.map(JSONNaming.iso8601) ?? "-"]
            })
        }
        return out
    }

    private static func swapTable(_ list: [JSONValue]) -> String {
        table(["ID", "KIND", "AMOUNT", "TO / WITH", "STATE", "FEES", "UPDATED"], list.map { swap in
            let kind = text(swap["kind"]) == "-" ? text(swap["role"]) : text(swap["kind"])
            let peer = swap["peer_name"]?.stringValue ?? (String(text(swap["peer"]).prefix(12)) + "…")
            let to: String
            if let destination = swap["destination"]?.stringValue {
                to = "\(String(destination.prefix(14)))… via \(peer)"
            } else {
                to = peer
            }
            var state = text(swap["state"]) + (swap["final"]?.boolValue == true ? "" : " (running)")
            // A client swap that did not deliver says where the money is (`held_until_cancelled`, `lost`, ...).
            if let funds = swap["funds"]?.stringValue, funds != "delivered" { state += ", funds \(funds)" }
            let when = swap["updated_at"]?.int64Value ?? swap["created_at"]?.int64Value
            return [String(text(swap["id"]).prefix(12)), kind, sats(swap["amount_sat"]), to, state, sats(swap["fees_sat"]),
                    when.map(JSONNaming.iso8601) ?? "-"]
        }) + "\nids: a unique prefix is enough (`peernode swap show <prefix>`)"
    }

    /// `swap show`: the contract's facts, then a timeline, one line per step.
    static func swap(_ result: JSONValue) -> String {
        let swap = result["swap"]
        let contract = swap?["contract"]
        var pairs: [(String, String)] = [("swap", text(swap?["id"])), ("role", text(swap?["role"]))]
        if let amount = contract?["amount_sat"] ?? contract?["quote"]?["amount_sat"] { pairs.append(("amount", sats(amount))) }
        if let destination = contract?["destination"]?.stringValue { pairs.append(("destination", destination)) }
        if let provider = contract?["provider"]?["name"]?.stringValue { pairs.append(("provider", provider)) }
        if let total = contract?["quote"]?["total_sat"] { pairs.append(("invoice total", sats(total))) }
        if let fee = contract?["quote"]?["service_fee_sat"] { pairs.append(("service fee", sats(fee))) }
        pairs.append(("peer", text(swap?["peer"])))
        if let created = swap?["created_at"]?.int64Value { pairs.append(("created", JSONNaming.iso8601(created))) }
        if let funds = result["funds"]?["text"]?.stringValue { pairs.append(("funds", funds)) }
        if let proof = result["proof_of_payment"], let preimage = proof["preimage"]?.stringValue {
            pairs.append(("preimage", "\(preimage) (proof of payment, from \(text(proof["preimage_source"])))"))
        }
        var out = fields(pairs)
        out += "\n\ntimeline:\n"
        let events = result["events"]?.arrayValue ?? []
        var previous: JSONValue?
        out += events.map { event in
            let when = event["at"]?.int64Value.map(JSONNaming.iso8601) ?? "-"
            let final = event["final"]?.boolValue == true ? " (final)" : ""
            // What this step did: the facts it added or changed since the one before.
            let detail = summary(event["data"], since: previous)
            previous = event["data"]
            return "  \(when)  \(text(event["kind"]))\(final)" + (detail.isEmpty ? "" : ": " + detail)
        }.joined(separator: "\n")
        return out + "\n(the raw contract and events: `--json`)"
    }

    /// An event's data in one line: txids and amounts first, other scalars after; with
    /// `since`, only what changed from it. A raw transaction is named by its size (the
    /// bytes are under --json).
    static func summary(_ data: JSONValue?, since previous: JSONValue? = nil) -> String {
        guard case .object(var members)? = data else { return "" }
        if case .object(let before)? = previous {
            members = members.filter { before[$0.key] != $0.value }
        }
        let keys = members.keys.sorted { a, b in
            let ra = a.contains("txid") || a.hasSuffix("_sat") ? 0 : 1
            let rb = b.contains("txid") || b.hasSuffix("_sat") ? 0 : 1
            return ra != rb ? ra < rb : a < b
        }
        return keys.compactMap { key -> String? in
            switch members[key]! {
            case .string(let value) where value.count > 100: return "\(key) (\(value.count / 2) bytes)"
            case .string(let value): return "\(key) \(value)"
            case .number: return key.hasSuffix("_sat") ? "\(key) \(sats(members[key]))" : "\(key) \(text(members[key]))"
            case .bool(let flag): return "\(key) \(flag)"
            default: return nil
            }
        }.joined(separator: ", ")
    }

    /// Any result as indented `key: value` lines (the engines' results until they get
    /// their own layout); amounts (`*_sat`) are grouped.
    static func generic(_ value: JSONValue, indent: String = "") -> String {
        guard case .object(let members) = value else { return indent + text(value) }
        var lines: [String] = []
        for key in members.keys.sorted() {
            let member = members[key]!
            switch member {
            case .object:
                lines.append("\(indent)\(key):")
                lines.append(generic(member, indent: indent + "  "))
            case .array(let items) where items.isEmpty:
                lines.append("\(indent)\(key): none")
            case .array(let items):
                // One item per line (`recover`'s swaps found), not a line of raw JSON.
                lines.append("\(indent)\(key):")
                for item in items {
                    let body = generic(item, indent: indent + "    ")
                    let trimmed = body.drop { $0 == " " }
                    lines.append("\(indent)  - " + trimmed)
                }
            default:
                lines.append("\(indent)\(key): \(key.hasSuffix("_sat") ? sats(member) : text(member))")
            }
        }
        return lines.joined(separator: "\n")
    }
}
